import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';

export type DatabaseKind = 'postgres' | 'pglite';

export interface DatabaseOptions {
  /** A PostgreSQL server. When unset, an embedded PostgreSQL (PGlite). */
  databaseUrl?: string;
  /** Where PGlite keeps its files; unset means in memory (tests). */
  dataDir?: string;
  poolMax: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  /** Schemas to search first; tests isolate each file in its own schema. */
  searchPath?: string[];
}

export interface Database {
  knex: Knex;
  kind: DatabaseKind;
}

function openPostgres(databaseUrl: string, options: DatabaseOptions): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: databaseUrl,
      application_name: 'customer-payment-profiles',
      statement_timeout: options.statementTimeoutMs,
      // A server that does not answer a connect attempt must not hold a request
      // for longer than the pool would wait anyway.
      connectionTimeoutMillis: options.acquireTimeoutMs,
    },
    pool: { min: 0, max: options.poolMax },
    acquireConnectionTimeout: options.acquireTimeoutMs,
    ...(options.searchPath ? { searchPath: options.searchPath } : {}),
  });
}

function openPglite(options: DatabaseOptions): Knex {
  if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true });
  const pglite = new PGlite(options.dataDir);
  // PGlite is one connection: knex-pglite fixes the pool at 1, and requests queue for it.
  return knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    connection: { pglite } as unknown as Knex.StaticConnectionConfig,
    acquireConnectionTimeout: options.acquireTimeoutMs,
    ...(options.searchPath ? { searchPath: options.searchPath } : {}),
  });
}

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl !== undefined
    ? { knex: openPostgres(options.databaseUrl, options), kind: 'postgres' }
    : { knex: openPglite(options), kind: 'pglite' };
}
