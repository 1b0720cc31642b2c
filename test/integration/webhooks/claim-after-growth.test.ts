import { claimDueDeliveries } from '../../../src/webhooks/webhook-deliveries.repository';
import { rowsRead, countedSince } from '../../support/rows-read';
import { analyzeOwnTables, openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * The claim reads what it takes, however the deliveries grew after the
 * statistics were taken and after the dispatcher first claimed on the
 * connection: a plan kept from when the table was empty read every delivery,
 * and every event, for each claim (docs/decisions.md). A new deployment
 * starts that way, and on a server without autovacuum it stays that way.
 * One connection, so the claim runs where it ran before.
 */
const ENDPOINTS = 10;
const DELIVERIES = 100_000;
/** One in a hundred is pending and due, spread over the endpoints; the rest were delivered. */
const PENDING_EVERY = 100;
const PER_ENDPOINT = 4;

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase({ poolMax: 1 });
});
afterAll(async () => {
  await db.close();
});

const claim = () => claimDueDeliveries(db.knex, { limit: 50, perEndpoint: PER_ENDPOINT, busy: new Map(), leaseMs: 30_000 });

it('claims from 100,000 deliveries added after the first claims saw the table empty, reading only what a claim takes', async () => {
  await db.knex.raw(
    `insert into webhook_endpoints (location_id, id, url, enabled_events, status, secret)
     select 'claim-location', gen_random_uuid(), 'https://hooks.example.com/' || n, '{*}', 'ENABLED', 'whsec_claim' from generate_series(1, ?) n`,
    [ENDPOINTS],
  );
  await analyzeOwnTables(db.knex);
  for (let poll = 0; poll < 10; poll += 1) expect(await claim()).toEqual([]);
  await db.knex.raw(
    `insert into events (location_id, id, type, created_at, data)
     select 'claim-location', gen_random_uuid(), 'customer.created', now(), '{"object": {}, "previous": null}' from generate_series(1, 1000)`,
  );
  await db.knex.raw(
    `with endpoint as (select id, row_number() over (order by id) - 1 as n from webhook_endpoints where location_id = 'claim-location'),
          event as (select id from events where location_id = 'claim-location' limit 1)
     insert into webhook_deliveries (location_id, id, endpoint_id, event_id, status)
     select 'claim-location', gen_random_uuid(), endpoint.id, event.id, case when d % ? = 0 then 'PENDING' else 'SUCCEEDED' end
       from generate_series(1, ?) d
       join endpoint on endpoint.n = (d / ?) % ?
       cross join event`,
    [PENDING_EVERY, DELIVERIES, PENDING_EVERY, ENDPOINTS],
  );

  const tables = ['webhook_deliveries', 'events'];
  const before = await rowsRead(db.knex, tables);
  const claimed = await claim();
  const read = countedSince(before, await rowsRead(db.knex, tables));

  expect(claimed).toHaveLength(ENDPOINTS * PER_ENDPOINT);
  expect(new Set(claimed.map(({ endpoint }) => endpoint.id)).size).toBe(ENDPOINTS);
  // One index descent per endpoint with a pending delivery and one past the last, each window's rows, each leased row again.
  expect(read.webhook_deliveries).toBeLessThanOrEqual(ENDPOINTS + 1 + 2 * claimed.length);
  // Each claimed delivery's event, by its key.
  expect(read.events).toBe(claimed.length);
});
