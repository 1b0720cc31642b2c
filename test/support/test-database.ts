import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { openDatabase, type DatabaseKind } from '../../src/platform/db/database';
import { migrateToLatest } from '../../src/platform/db/migration-source';
import { createLogger } from '../../src/platform/logger';
import { pgliteTemplate } from './pglite-template';

export interface TestDatabase {
  knex: Knex;
  kind: DatabaseKind;
  close(): Promise<void>;
}

/**
 * Knex's warnings (lost connections while the fault tests break the network)
 * would fill the test output; tests that look at them open their own database.
 */
const POOL = { acquireTimeoutMs: 10_000, statementTimeoutMs: 10_000, logger: createLogger({ level: 'silent' }) };

/**
 * A migrated database for one test file (`migrate: false`: an empty one). Without DATABASE_URL it is a PGlite
 * in memory; with it, a schema of its own on that server (so test files can
 * run in parallel), dropped again by close(). With DB_POOLER=pgbouncer as
 * well (DATABASE_URL then names PgBouncer, MIGRATIONS_DATABASE_URL the server
 * past it), a database of its own instead, since a schema search path is a
 * session setting that transaction pooling does not keep.
 */
export async function openTestDatabase(options: { poolMax?: number; migrate?: boolean } = {}): Promise<TestDatabase> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const migrate = options.migrate === false ? async () => undefined : migrateToLatest;
  if (databaseUrl === undefined) {
    // A copy of the migrated template (pglite-template.ts), when migrated; migrating it again finds nothing to do.
    const template = options.migrate === false ? undefined : pgliteTemplate();
    const { knex, kind } = openDatabase({
      poolMax: 1,
      ...POOL,
      pgliteSharedBuffers: '16MB',
      ...(template === undefined ? {} : { pgliteTemplate: template }),
    });
    await migrate(knex);
    return { knex, kind, close: () => knex.destroy() };
  }
  if (process.env.DB_POOLER === 'pgbouncer') return openPooledTestDatabase(databaseUrl, options.poolMax ?? 10, migrate);

  const schema = `test_${randomBytes(6).toString('hex')}`;
  await withAdmin(databaseUrl, (admin) => admin.raw('create schema ??', [schema]));
  const { knex, kind } = openDatabase({ databaseUrl, searchPath: [schema], poolMax: options.poolMax ?? 10, ...POOL });
  await migrate(knex);
  return {
    knex,
    kind,
    close: async () => {
      await knex.destroy();
      await withAdmin(databaseUrl, (admin) => admin.raw('drop schema ?? cascade', [schema]));
    },
  };
}

/** A database of its own on the server, migrated past the pooler and used through it. */
async function openPooledTestDatabase(poolerUrl: string, poolMax: number, migrate: (knex: Knex) => Promise<unknown>): Promise<TestDatabase> {
  const serverUrl = process.env.MIGRATIONS_DATABASE_URL;
  if (serverUrl === undefined) throw new Error('DB_POOLER=pgbouncer needs MIGRATIONS_DATABASE_URL: the server past the pooler');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const on = (url: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  await withAdmin(serverUrl, (admin) => admin.raw(`create database ${name}`));
  const direct = openDatabase({ databaseUrl: on(serverUrl), poolMax: 1, ...POOL }).knex;
  try {
    await migrate(direct);
  } finally {
    await direct.destroy();
  }
  const { knex, kind } = openDatabase({ databaseUrl: on(poolerUrl), behindPgBouncer: true, poolMax, ...POOL });
  return {
    knex,
    kind,
    close: async () => {
      await knex.destroy();
      await withAdmin(serverUrl, (admin) => admin.raw(`drop database if exists ${name} with (force)`));
    },
  };
}

async function withAdmin(databaseUrl: string, work: (admin: Knex) => Promise<unknown>): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  try {
    await work(admin);
  } finally {
    await admin.destroy();
  }
}

/**
 * ANALYZE of the tables in the test's own schema only. A bare ANALYZE takes
 * every schema of the shared database, so it reaches other files' tables
 * too: one it samples while another file's bulk insert is uncommitted is
 * left counted as empty yet many pages long, and the planner then scans it
 * whole as if it were one row (a claim read all 100,000 deliveries so).
 */
export async function analyzeOwnTables(knex: Knex): Promise<void> {
  const { rows } = await knex.raw<{ rows: Array<{ name: string }> }>(
    `select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = current_schema()`,
  );
  await knex.raw(`analyze ${rows.map(({ name }) => name).join(', ')}`);
}
