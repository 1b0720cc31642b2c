import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * The PostgreSQL server multi-process tests use: the one DATABASE_URL names
 * (the server past the pooler, MIGRATIONS_DATABASE_URL, when the suite runs
 * through PgBouncer: the processes they start are not told of it), else the
 * local server. Several processes cannot share the embedded PGlite, so these
 * tests need a server even in the PGlite suite.
 */
const SERVER_URL =
  process.env.MIGRATIONS_DATABASE_URL || process.env.DATABASE_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer(statement: string): Promise<void> {
  const client = new Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new, empty database on that server, dropped (connections and all) by `drop`. */
export async function freshPostgresDatabase(): Promise<FreshDatabase> {
  const name = `cpp_test_${randomBytes(6).toString('hex')}`;
  await onServer(`create database ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(`drop database if exists ${name} with (force)`) };
}
