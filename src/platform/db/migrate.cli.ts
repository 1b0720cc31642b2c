import 'dotenv/config';
import { loadConfig, type Config } from '../config';
import { migrationDatabaseOptionsFrom, openDatabase } from './database';
import { databaseStartupProblem } from './startup-database-error';
import { migrateToLatest } from './migration-source';

/**
 * `npm run migrate`: applies pending migrations to the configured database and
 * exits. Safe to run from several replicas at once: Knex holds its migration
 * lock while it works.
 */
async function main(): Promise<void> {
  // Only the database settings are needed: a first production start migrates before it has keys or clients.
  const config = loadConfig(process.env, 'migrations');
  try {
    await migrate(config);
  } catch (error) {
    // What the service says when the same database stops its start: the setting, masked, and what to check.
    throw new Error(databaseStartupProblem(error, config) ?? (error instanceof Error ? error.message : String(error)), { cause: error });
  }
}

async function migrate(config: Config): Promise<void> {
  // One connection, past any pooler (MIGRATIONS_DATABASE_URL), and no statement time-out: a migration may rewrite a large table.
  const { knex, kind } = openDatabase({ ...migrationDatabaseOptionsFrom(config), poolMax: 1, statementTimeoutMs: 0 });
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
