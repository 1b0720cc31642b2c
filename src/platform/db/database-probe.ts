import type { Knex } from 'knex';
import pg from 'pg';

/**
 * Asks the database whether it answers now, as readiness needs it. On a
 * server, on a connection of its own, opened and closed for the probe: a
 * pooled connection opened before a fault may still answer while the server
 * refuses every new one, and the pool cannot replace what it loses. On the
 * embedded database (one connection in this process) through the pool.
 */
export function databaseProbe(db: Knex): (timeoutMs: number) => Promise<void> {
  const { client, connection } = (db.client as { config: Knex.Config }).config;
  // Knex's own pg client is named by a string; PGlite's is a class (database.ts).
  if (client !== 'pg' || connection === undefined || (typeof connection !== 'object' && typeof connection !== 'function')) {
    return async () => {
      await db.raw('select 1');
    };
  }
  // Several hosts (database.ts): the settings of the host new connections go to now, the primary as last found.
  const settingsNow = async (): Promise<pg.ClientConfig> => {
    if (typeof connection !== 'function') return connection as pg.ClientConfig;
    const { expirationChecker: _checker, ...settings } = await (connection as () => Promise<pg.ClientConfig & { expirationChecker?: unknown }>)();
    return settings;
  };
  return async (timeoutMs) => {
    const probe = new pg.Client({ ...(await settingsNow()), connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
    // A socket error after the probe settled (the server going away) must not become an unhandled one.
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.query('select 1');
    } finally {
      await probe.end().catch(() => undefined);
    }
  };
}
