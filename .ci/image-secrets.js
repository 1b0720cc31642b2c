// Writes what the image is given at run time, as an operator would mount it:
// a signing key, a secrets keyring and a one-client file, into the folder $1.
//   node .ci/image-secrets.js DIR CLIENT_ID CLIENT_SECRET
const { writeFileSync } = require('node:fs');
const path = require('node:path');

async function main() {
  const [dir, clientId, clientSecret] = process.argv.slice(2);
  // The build's own modules: what `npm run key:new` and `npm run client:new` use.
  const { newSigningJwk } = require('../dist/src/auth/signing-keys');
  const { hashClientSecret } = require('../dist/src/auth/client-secret');
  const { withNewKey } = require('../dist/src/platform/secrets/secret-box');
  writeFileSync(path.join(dir, 'signing-key.json'), JSON.stringify(await newSigningJwk()));
  writeFileSync(path.join(dir, 'secrets-keyring.json'), JSON.stringify(withNewKey()));
  const clients = [{ clientId, secretHash: await hashClientSecret(clientSecret), scopes: ['spi.customers:write', 'spi.customers:read'], locations: ['*'] }];
  writeFileSync(path.join(dir, 'clients.json'), JSON.stringify(clients));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
