import { openDatabase, type Database } from '../../../src/platform/db/database';
import { migrateToLatest } from '../../../src/platform/db/migration-source';
import { createLogger } from '../../../src/platform/logger';
import { freshPostgresDatabase } from './fresh-postgres-database';

export interface MigratedServerDatabase extends Pick<Database, 'knex' | 'kind'> {
  url: string;
  close(): Promise<void>;
}

/**
 * A new database on the PostgreSQL server (fresh-postgres-database.ts) with
 * the service's migrations applied, opened as the service opens one; `close`
 * ends its pool and drops it. For the system tests that must run on a
 * server whatever the suite's database is.
 */
export async function migratedServerDatabase(options: { poolMax: number; statementTimeoutMs: number }): Promise<MigratedServerDatabase> {
  const database = await freshPostgresDatabase();
  const { knex, kind } = openDatabase({
    databaseUrl: database.url,
    poolMax: options.poolMax,
    acquireTimeoutMs: 10_000,
    statementTimeoutMs: options.statementTimeoutMs,
    logger: createLogger({ level: 'silent' }),
  });
  await migrateToLatest(knex);
  return {
    url: database.url,
    knex,
    kind,
    close: async () => {
      await knex.destroy();
      await database.drop();
    },
  };
}
