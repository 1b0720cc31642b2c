import { fanOutEvents } from '../../../src/webhooks/webhook-deliveries.repository';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * The outbox is a queue: it is empty most of the time and holds a backlog
 * when writes outrun the fan-out (a dispatcher stopped, a burst). A batch
 * must read about a batch of it however it has grown since the statistics
 * were taken and since the fan-out first ran on the connection: a plan kept
 * from when it was empty read the whole backlog for every batch, and on a
 * server without autovacuum a benchmark's fan-out stalled for minutes
 * (docs/decisions.md). One connection, so the fan-out runs where it ran
 * before. The rows a statement read come from PostgreSQL's own counters.
 */
const BACKLOG = 20_000;
const BATCH = 200;

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase({ poolMax: 1 });
});
afterAll(async () => {
  await db.close();
});

/** Tuples read from the outbox so far, by sequential and index scans; flushed first, as the counters are reported when the session is idle. */
async function outboxRowsRead(): Promise<number> {
  await db.knex.raw('select pg_stat_force_next_flush()');
  const { rows } = await db.knex.raw<{ rows: Array<{ read: string }> }>(
    "select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as read from pg_stat_user_tables where relname = 'event_outbox'",
  );
  return Number(rows[0]?.read);
}

it('takes a batch off a backlog that grew after the statistics and the first fan-outs saw the outbox empty, reading about a batch', async () => {
  await db.knex.raw('analyze event_outbox');
  for (let poll = 0; poll < 10; poll += 1) expect(await fanOutEvents(db.knex, BATCH)).toBe(0);
  await db.knex.raw(
    `insert into event_outbox (location_id, event_id, created_at)
     select 'backlog-location', gen_random_uuid(), now() - n * interval '1 millisecond' from generate_series(1, ?) n`,
    [BACKLOG],
  );

  const before = await outboxRowsRead();
  expect(await fanOutEvents(db.knex, BATCH)).toBe(BATCH);
  const read = (await outboxRowsRead()) - before;

  expect(read).toBeGreaterThanOrEqual(BATCH);
  expect(read).toBeLessThanOrEqual(2 * BATCH);
  const { rows } = await db.knex.raw<{ rows: Array<{ left: number }> }>('select count(*)::int as left from event_outbox');
  expect(rows[0]?.left).toBe(BACKLOG - BATCH);
});
