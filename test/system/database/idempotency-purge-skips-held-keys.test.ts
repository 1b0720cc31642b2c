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

/** What `work` answers, or 'waited' if a statement in this test's database waits on a lock before it settles (pg_locks, polled). */
async function unlessALockIsWaitedOn<T>(work: Promise<T>): Promise<T | 'waited'> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    const { rows } = await knex.raw<{ rows: Array<{ waiting: number }> }>(
      `select count(*)::int as waiting from pg_locks
        where not granted and pid in (select pid from pg_stat_activity where datname = current_database())`,
    );
    if ((rows[0]?.waiting ?? 0) > 0) return 'waited';
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return work;
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

  expect(await unlessALockIsWaitedOn(purgeExpiredIdempotencyKeys(knex))).toBe(EXPIRED - 1);
  const { rows } = await holder.query<{ key: string }>('select key from idempotency_keys');
  expect(rows).toEqual([{ key: oldest }]);

  await holder.query('commit');
  expect(await purgeExpiredIdempotencyKeys(knex)).toBe(1);
  expect((await knex('idempotency_keys').count<Array<{ count: string }>>('* as count'))[0]?.count).toBe('0');
});
