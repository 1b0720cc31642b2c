import 'dotenv/config';
import { loadConfig } from '../config';
import { openDatabase } from './database';
import { migrateToLatest } from './migration-source';

/**
 * `npm run migrate`: applies pending migrations to the configured database and
 * exits. Safe to run from several replicas at once: Knex holds its migration
 * lock while it works.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const { knex, kind } = openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolMax: 1,
    acquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
    statementTimeoutMs: 0,
  });
  try {
    const applied = await migrateToLatest(knex);
    console.log(applied.length === 0 ? `${kind}: already up to date` : `${kind}: applied ${applied.join(', ')}`);
  } finally {
    await knex.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
