import { Client } from 'pg';
import { openDatabase } from '../src/platform/db/database';
import { migrateToLatest } from '../src/platform/db/migration-source';

/** The server the bench and its scripts create their databases on: DATABASE_URL, or the local one. */
export const benchServerUrl = (): string => process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database of its own on the server, created for one benchmark run and dropped after it. */
export interface BenchDatabase {
  url: string;
  serverVersion: string;
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates `cpp_bench_<time>_<pid>` on the server of `serverUrl` and applies the service's migrations to it. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `cpp_bench_${Date.now()}_${process.pid}`;
  const serverVersion = await onServer(serverUrl, async (client) => {
    await client.query(`create database ${name}`);
    return String((await client.query('show server_version')).rows[0].server_version);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database: BenchDatabase = {
    url: url.toString(),
    serverVersion,
    drop: () => onServer(serverUrl, async (client) => void (await client.query(`drop database if exists ${name} with (force)`))),
  };
  const { knex } = openDatabase({ databaseUrl: database.url, poolMax: 1, acquireTimeoutMs: 10_000, statementTimeoutMs: 0 });
  try {
    await migrateToLatest(knex);
  } catch (error) {
    await database.drop();
    throw error;
  } finally {
    await knex.destroy();
  }
  return database;
}

/** One connection to the bench database for the work `work` does (seeding, EXPLAIN). */
export function withClient<T>(databaseUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  return onServer(databaseUrl, work);
}
