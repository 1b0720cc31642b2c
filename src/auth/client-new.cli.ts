import { parseArgs } from 'node:util';
import { apiClientSchema } from './api-clients';
import { hashClientSecret, newClientSecret } from './client-secret';
import { ALL_LOCATIONS } from './scopes';

const USAGE = `npm run client:new -- --id <clientId> --scope <scope> [--scope <scope> ...] [--location <id> ...]

Prints a new API client's secret once, and the entry to add to AUTH_CLIENTS_FILE
(or AUTH_CLIENTS). Without --location the client may act for every location.`;

/** `npm run client:new`: a new API client's secret (shown once) and its configuration entry. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      id: { type: 'string' },
      scope: { type: 'string', multiple: true },
      location: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
  if (values.help || values.id === undefined || values.scope === undefined) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 1);
  }
  const secret = newClientSecret();
  const entry = apiClientSchema.safeParse({
    clientId: values.id,
    secretHash: await hashClientSecret(secret),
    scopes: values.scope,
    locations: values.location ?? [ALL_LOCATIONS],
  });
  if (!entry.success) {
    console.error(entry.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n'));
    process.exit(1);
  }
  console.log(`clientId:     ${entry.data.clientId}`);
  console.log(`clientSecret: ${secret}`);
  console.log('(the secret is shown only now; the service keeps only its hash)\n');
  console.log('Add to the AUTH_CLIENTS_FILE array:');
  console.log(JSON.stringify(entry.data, null, 2));
}

void main();
