import 'dotenv/config';
import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config';
import { databaseOptionsFrom, openDatabase } from '../platform/db/database';
import { releaseLoginThrottle } from './login-throttle';

const USAGE = `npm run login:release -- --client <clientId>

Forgets the failed logins counted for a client from every address, so that a
client locked out (429 on the token endpoint) may log in again at once. Runs
against the database the service's configuration names (DATABASE_URL, or the
embedded one under DATA_DIR while the service is stopped).`;

/** `npm run login:release`: releases a client from the login throttle. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { client: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help || values.client === undefined) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 1);
  }
  const { knex } = openDatabase(databaseOptionsFrom(loadConfig(process.env, 'database')));
  try {
    const released = await releaseLoginThrottle(knex, values.client);
    console.log(`Released ${values.client}: ${released} address count(s) forgotten.`);
  } finally {
    await knex.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
