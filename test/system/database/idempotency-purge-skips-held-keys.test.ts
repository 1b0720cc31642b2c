import { Client } from 'pg';
import type { Knex } from 'knex';
import { purgeExpiredIdempotencyKeys } from '../../../src/idempotency/idempotency-keys.repository';
import { migratedServerDatabase, type MigratedServerDatabase } from '../../support/process/migrated-server-database';

/**
 * A request that finds its idempotency key expired takes it over, holding
 * the row locked in its transaction; the purge must pass such a key by
 * rather than wait on it (and hold the rest of its batch locked meanwhile),
 * and take it on a later run. PGlite is one connection, where a second
 * transaction waits its turn whatever the statement says: only a server
 * shows the skip.
 */
const EXPIRED = 2_500;

let database: MigratedServerDatabase;
let knex: Knex;
let holder: Client;

beforeAll(async () => {
  database = await migratedServerDatabase({ poolMax: 2, statementTimeoutMs: 10_000 });
  ({ knex } = database);
  holder = new Client({ connectionString: database.url });
  await holder.connect();
});
afterAll(async () => {
  await holder.end();
  await database.close();
});

/** Resolves once a statement in this test's database waits on a lock, polling pg_locks. */
async function someoneWaitsOnALock(stop: { done: boolean }): Promise<'waited'> {
  for (;;) {
    const { rows } = await knex.raw<{ rows: Array<{ waiting: number }> }>(`select count(*)::int as waiting from pg_locks
        where not granted and pid in (select pid from pg_stat_activity where datname = current_database())`);
    if ((rows[0]?.waiting ?? 0) > 0) return 'waited';
    if (stop.done) return new Promise<'waited'>(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('passes by an expired key a request holds, purging the others at once, and takes it once released', async () => {
  // The held key is the oldest: the first the purge's first batch would take.
  await knex.raw(
    `insert into idempotency_keys (issuer, client_id, location_id, key, fingerprint, claim_token, state, expires_at)
     select 'issuer', 'client', 'location', 'key-' || n, 'fingerprint', gen_random_uuid(), 'in_progress', now() - n * interval '1 second'
       from generate_series(1, ?) n`,
    [EXPIRED],
  );
  const oldest = `key-${EXPIRED}`;
  await holder.query('begin');
  await holder.query('select 1 from idempotency_keys where key = $1 for update', [oldest]);

  const stop = { done: false };
  const purge = purgeExpiredIdempotencyKeys(knex).finally(() => (stop.done = true));
  const outcome = await Promise.race([purge, someoneWaitsOnALock(stop)]);

  expect(outcome).toBe(EXPIRED - 1);
  const { rows } = await holder.query<{ key: string }>('select key from idempotency_keys');
  expect(rows).toEqual([{ key: oldest }]);

  await holder.query('commit');
  expect(await purgeExpiredIdempotencyKeys(knex)).toBe(1);
  expect((await knex('idempotency_keys').count<Array<{ count: string }>>('* as count'))[0]?.count).toBe('0');
});
