import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { newSigningJwk } from '../../../src/auth/signing-keys';
import { withNewKey } from '../../../src/platform/secrets/secret-box';
import { freshPostgresDatabase, type FreshDatabase } from './fresh-postgres-database';
import { startSourceService, type RunningService } from './service-process';

/**
 * Service processes (any number, replicas of one another) over one fresh
 * database of the PostgreSQL server, sharing one signing key so that a token
 * from one is good at the others; `close` stops them and drops the database.
 */
export interface ServicesOnFreshDatabase {
  database: FreshDatabase;
  start(extraEnv?: Record<string, string>): Promise<RunningService>;
  /** A statement on the database, outside the service. */
  query<Row>(sql: string, values?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export async function servicesOnFreshDatabase(env: Record<string, string>): Promise<ServicesOnFreshDatabase> {
  const database = await freshPostgresDatabase();
  const keyDirectory = mkdtempSync(path.join(os.tmpdir(), 'cpp-key-'));
  const keyFile = path.join(keyDirectory, 'signing-key.json');
  writeFileSync(keyFile, JSON.stringify(await newSigningJwk()), { mode: 0o600 });
  // One keyring too: a secret one replica seals, another opens.
  const keyringFile = path.join(keyDirectory, 'secrets-keyring.json');
  writeFileSync(keyringFile, JSON.stringify(withNewKey()), { mode: 0o600 });
  const running: RunningService[] = [];
  return {
    database,
    async start(extraEnv = {}) {
      const service = await startSourceService({
        DATABASE_URL: database.url,
        AUTH_SIGNING_KEY_FILE: keyFile,
        SECRETS_ENCRYPTION_KEY_FILE: keyringFile,
        ...env,
        ...extraEnv,
      });
      running.push(service);
      return service;
    },
    async query<Row>(sql: string, values: unknown[] = []) {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows as Row[];
      } finally {
        await client.end();
      }
    },
    async close() {
      await Promise.all(running.map((service) => service.stop()));
      await database.drop();
      rmSync(keyDirectory, { recursive: true, force: true });
    },
  };
}
