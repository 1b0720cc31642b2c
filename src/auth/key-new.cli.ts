import { newSigningJwk } from './signing-keys';

/**
 * `npm run key:new > signing-key.json`: a new ES256 private signing key as a
 * JWK, for AUTH_SIGNING_KEY_FILE. To rotate, publish the old key's public part
 * in AUTH_PREVIOUS_KEYS_FILE until the tokens it signed have expired.
 */
void newSigningJwk().then((jwk) => console.log(JSON.stringify(jwk)));
