import { purgeEventsBefore } from '../../../src/change-log/event-rows';
import { PURGE_BATCH } from '../../../src/change-log/event-retention';
import { IDEMPOTENCY_PURGE_BATCH, PURGE_EXPIRED_KEYS, purgeExpiredIdempotencyKeys } from '../../../src/idempotency/idempotency-keys.repository';
import { runPrepared } from '../../../src/platform/db/prepared-statement';
import { countedSince, rowsRead } from '../../support/rows-read';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * The purges run on long-lived connections, first when a table is small
 * (a new deployment) and again after it has grown past its statistics. A
 * batch must read about a batch however the table grew: a plan PostgreSQL
 * kept from the first runs must not read the whole table for each batch,
 * as the outbox's once did (docs/decisions.md, The queues' statements).
 * One connection, so each purge runs where it ran before; PostgreSQL's own
 * row counters say what it read.
 */
const EXPIRED = 20_000;
const DAY_MS = 24 * 3_600_000;

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase({ poolMax: 1 });
});
afterAll(async () => {
  await db.close();
});

it('the retention purge takes a batch of expired events off a table that grew after its first runs, reading about a batch', async () => {
  const before = new Date(Date.now() - 90 * DAY_MS);
  await db.knex.raw('analyze events');
  for (let run = 0; run < 10; run += 1) expect(await purgeEventsBefore(db.knex, before, PURGE_BATCH)).toBe(0);
  await db.knex.raw(
    `insert into events (location_id, id, type, data, created_at)
     select 'grown-location', gen_random_uuid(), 'customer.created', '{"object": {}, "previous": null}', now() - interval '91 days' - n * interval '1 second'
       from generate_series(1, ?) n`,
    [EXPIRED],
  );

  const counted = await rowsRead(db.knex, ['events']);
  expect(await purgeEventsBefore(db.knex, before, PURGE_BATCH)).toBe(PURGE_BATCH);
  const read = countedSince(counted, await rowsRead(db.knex, ['events']));

  expect(read.events).toBeGreaterThanOrEqual(PURGE_BATCH);
  expect(read.events).toBeLessThanOrEqual(2 * PURGE_BATCH);
});

it('the idempotency-key purge deletes expired keys a batch a transaction, its first batch reading about a batch, and keeps the live ones', async () => {
  for (let run = 0; run < 10; run += 1) expect(await purgeExpiredIdempotencyKeys(db.knex)).toBe(0);
  await db.knex.raw(
    `insert into idempotency_keys (issuer, client_id, location_id, key, fingerprint, claim_token, state, expires_at)
     select 'grown-issuer', 'grown-client', 'grown-location', 'key-' || n, 'fingerprint', gen_random_uuid(), 'in_progress',
            now() + case when n <= ? then -n * interval '1 second' else interval '1 day' end
       from generate_series(1, ?) n`,
    [EXPIRED, EXPIRED + 10],
  );

  // The first batch on its own, where the purge's plan would show: a batch read, not the table.
  const counted = await rowsRead(db.knex, ['idempotency_keys']);
  expect(await runPrepared(db.knex, PURGE_EXPIRED_KEYS, [IDEMPOTENCY_PURGE_BATCH])).toHaveLength(IDEMPOTENCY_PURGE_BATCH);
  const read = countedSince(counted, await rowsRead(db.knex, ['idempotency_keys']));
  expect(read.idempotency_keys).toBeGreaterThanOrEqual(IDEMPOTENCY_PURGE_BATCH);
  expect(read.idempotency_keys).toBeLessThanOrEqual(2 * IDEMPOTENCY_PURGE_BATCH);

  const batches: number[] = [];
  expect(await purgeExpiredIdempotencyKeys(db.knex, (purged) => batches.push(purged))).toBe(EXPIRED - IDEMPOTENCY_PURGE_BATCH);
  // The other nineteen full batches, then one that finds nothing left and ends the purge.
  expect(batches).toEqual([...Array<number>(EXPIRED / IDEMPOTENCY_PURGE_BATCH - 1).fill(IDEMPOTENCY_PURGE_BATCH), 0]);
  const { rows } = await db.knex.raw<{ rows: Array<{ left: number }> }>('select count(*)::int as left from idempotency_keys where expires_at > now()');
  expect(rows[0]?.left).toBe(10);
});
