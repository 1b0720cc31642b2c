import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { secretsFilePath } from '../platform/secrets/secrets-folder';
import { apiClientSchema, type ApiClient } from './api-clients';
import { hashClientSecret, newClientSecret } from './client-secret';
import { ALL_LOCATIONS } from './scopes';

const USAGE = `npm run client:new -- --id <clientId> --scope <scope> [--scope <scope> ...] [--location <id> ...] [--append FILE]

Prints a new API client's secret once, and its entry for AUTH_CLIENTS_FILE (or
AUTH_CLIENTS): a JSON array holding the entry, to paste as is or merge into
an existing array. With --append FILE the entry is added to that clients file
(created with mode 0600 if missing; a client id already in it is refused); a
bare file name goes into deploy/secrets/ (git-ignored).
Without --location the client may act for every location.`;

/** Adds the entry to the clients file's array, refusing a client id it already holds. */
function appendTo(file: string, entry: ApiClient): void {
  const existing: unknown = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
  if (!Array.isArray(existing)) throw new Error(`${file} does not hold a JSON array of clients`);
  if (existing.some((client: { clientId?: unknown }) => client.clientId === entry.clientId)) {
    throw new Error(`${file} already has a client ${entry.clientId}`);
  }
  writeFileSync(file, `${JSON.stringify([...existing, entry], null, 2)}\n`, { mode: 0o600 });
}

/** `npm run client:new`: a new API client's secret (shown once) and its configuration entry. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      id: { type: 'string' },
      scope: { type: 'string', multiple: true },
      location: { type: 'string', multiple: true },
      append: { type: 'string' },
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
  const file = values.append === undefined ? undefined : secretsFilePath(values.append);
  if (file !== undefined) {
    try {
      appendTo(file, entry.data);
    } catch (error) {
      console.error((error as Error).message);
      process.exit(1);
    }
  }
  // The secret and the notes go to stderr, so that stdout is the entry alone: `> clients.json` writes a valid file.
  console.error(`clientId:     ${entry.data.clientId}`);
  console.error(`clientSecret: ${secret}`);
  console.error('(the secret is shown only now; the service keeps only its hash)');
  console.error(file === undefined ? 'The entry, for AUTH_CLIENTS_FILE (or AUTH_CLIENTS):' : `Added to ${file}:`);
  console.log(JSON.stringify([entry.data], null, 2));
}

void main();
