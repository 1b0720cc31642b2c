import 'dotenv/config';
import { loadConfig } from '../config';
import { databaseOptionsFrom, openDatabase } from '../db/database';
import { createLogger } from '../logger';
import { forgetRetiredKeys, registerKeyring } from './keys-in-use';
import { resealSecrets } from './reseal-secrets';
import { loadSecretBox } from './secrets-keyring';

/**
 * `npm run secrets:rotate`: re-seals every stored secret under the current
 * key of SECRETS_ENCRYPTION_KEY_FILE (and seals any stored in clear), while
 * the service keeps running. Run it after every replica has the keyring
 * with the new key current (docs: secrets at rest).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL });
  const box = loadSecretBox(config);
  const { knex } = openDatabase(databaseOptionsFrom(config, logger));
  try {
    // Refused, as a start is, when the keyring lacks a key in use: it could not open what that key sealed.
    await registerKeyring(knex, box);
    const counts = await resealSecrets(knex, box);
    // Nothing is sealed under another key now: those keys may leave every keyring, and a process without them may start.
    const retired = await forgetRetiredKeys(knex, box);
    logger.info({ currentKey: box.currentKeyId, resealed: counts, retired }, 'secrets re-sealed under the current key');
  } finally {
    await knex.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
