import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory, { type Knex } from 'knex';
import { freshPostgresDatabase, type FreshDatabase } from './fresh-postgres-database';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

/**
 * A fresh database on the PostgreSQL server with a proxy of the test's own in
 * front of it: the service under test goes through `proxiedUrl`, which the
 * test breaks; the test itself looks at the database through `direct`.
 */
export interface ProxiedDatabase {
  database: FreshDatabase;
  proxy: TcpProxy;
  proxiedUrl: string;
  direct: Knex;
  /** Polls until `count` backends of this database (one by default) wait on a lock: the writes held by the test's lock are under way. */
  waitForLockWaiter(count?: number): Promise<void>;
  close(): Promise<void>;
}

export async function proxiedDatabase(): Promise<ProxiedDatabase> {
  const database = await freshPostgresDatabase();
  const server = new URL(database.url);
  const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
  const direct = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  const proxied = new URL(database.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return {
    database,
    proxy,
    proxiedUrl: proxied.toString(),
    direct,
    async waitForLockWaiter(count = 1) {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const result = await direct.raw("select count(*)::int as count from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
        if (((result.rows as Array<{ count: number }>)[0]?.count ?? 0) >= count) return;
        await sleep(50);
      }
      throw new Error(`fewer than ${count} backends ever waited on a lock`);
    },
    async close() {
      await direct.destroy();
      await proxy.close();
      await database.drop();
    },
  };
}
