import { fanOutEvents } from '../../../src/webhooks/webhook-deliveries.repository';
import { rowsRead, countedSince } from '../../support/rows-read';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * The outbox is a queue: it is empty most of the time and holds a backlog
 * when writes outrun the fan-out (a dispatcher stopped, a burst). A batch
 * must read about a batch of it however it has grown since the statistics
 * were taken and since the fan-out first ran on the connection: a plan kept
 * from when it was empty read the whole backlog for every batch, and on a
 * server without autovacuum a benchmark's fan-out stalled for minutes
 * (docs/decisions.md). One connection, so the fan-out runs where it ran
 * before.
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

it('takes a batch off a backlog that grew after the statistics and the first fan-outs saw the outbox empty, reading about a batch', async () => {
  await db.knex.raw('analyze event_outbox');
  for (let poll = 0; poll < 10; poll += 1) expect(await fanOutEvents(db.knex, BATCH)).toBe(0);
  await db.knex.raw(
    `insert into event_outbox (location_id, event_id, created_at)
     select 'backlog-location', gen_random_uuid(), now() - n * interval '1 millisecond' from generate_series(1, ?) n`,
    [BACKLOG],
  );

  const before = await rowsRead(db.knex, ['event_outbox']);
  expect(await fanOutEvents(db.knex, BATCH)).toBe(BATCH);
  const read = countedSince(before, await rowsRead(db.knex, ['event_outbox']));

  expect(read.event_outbox).toBeGreaterThanOrEqual(BATCH);
  expect(read.event_outbox).toBeLessThanOrEqual(2 * BATCH);
  const { rows } = await db.knex.raw<{ rows: Array<{ left: number }> }>('select count(*)::int as left from event_outbox');
  expect(rows[0]?.left).toBe(BACKLOG - BATCH);
});
