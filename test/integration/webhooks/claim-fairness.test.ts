import request from 'supertest';
import { createCustomer } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';
import { claimDueDeliveries, fanOutEvents } from '../../../src/webhooks/webhook-deliveries.repository';

/**
 * The dispatcher's claim is fair: each endpoint offers a window of its own
 * due deliveries, so an endpoint that was down for a day, its backlog all
 * older than anything else, takes only its share of a claim, and a healthy
 * endpoint's new delivery goes out in the next claim rather than after the
 * backlog (docs/events-and-webhooks.md, Delivery).
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
// Each case claims from its own deliveries alone.
afterEach(() => testApp.db.knex('webhook_deliveries').delete());
afterAll(() => testApp.close());

async function endpointAt(location: string): Promise<string> {
  const endpoint = await request(testApp.app)
    .post('/v1/webhook-endpoints')
    .set(testApp.as(location))
    .send({ url: 'http://127.0.0.1:9/hook', enabledEvents: ['*'] })
    .expect(201);
  return endpoint.body.id as string;
}

/** `count` deliveries to the endpoint, due since a day ago, a millisecond apart: what a day's outage leaves. */
async function backlogOf(location: string, endpointId: string, count: number): Promise<void> {
  await testApp.db.knex.raw(
    `with made as (
       insert into events (location_id, id, type, data, created_at)
       select ?, gen_random_uuid(), 'customer.created', '{"object": {}, "previous": null}', now() - interval '1 day'
         from generate_series(1, ?) n
       returning location_id, id
     )
     insert into webhook_deliveries (location_id, id, endpoint_id, event_id, status, next_attempt_at)
     select location_id, gen_random_uuid(), ?, id, 'PENDING', now() - interval '1 day' + row_number() over () * interval '1 millisecond'
       from made`,
    [location, count, endpointId],
  );
}

async function drainOutbox(): Promise<void> {
  while ((await fanOutEvents(testApp.db.knex, 200)) > 0);
}

const claim = (options: { limit: number; busy?: Map<string, number> }) =>
  claimDueDeliveries(testApp.db.knex, { limit: options.limit, perEndpoint: 4, busy: options.busy ?? new Map(), leaseMs: 60_000 });

function countByEndpoint(claimed: Awaited<ReturnType<typeof claim>>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const delivery of claimed) counts.set(delivery.endpoint.id, (counts.get(delivery.endpoint.id) ?? 0) + 1);
  return counts;
}

it("claims a healthy endpoint's new delivery beside another endpoint's day-old backlog, the backlog's endpoint taking only its share", async () => {
  const down = newLocation();
  const downEndpoint = await endpointAt(down);
  const healthy = Array.from({ length: 3 }, () => newLocation());
  const healthyEndpoints = await Promise.all(healthy.map(endpointAt));
  await drainOutbox();
  // Far more backlog than the claim's limit, and than the four-per-endpoint candidates of a single window over all endpoints.
  await backlogOf(down, downEndpoint, 500);
  for (const location of healthy) await createCustomer(testApp, location);
  await drainOutbox();

  const pending = (await testApp.db
    .knex('webhook_deliveries')
    .select('endpoint_id')
    .count({ n: '*' })
    .where({ status: 'PENDING' })
    .groupBy('endpoint_id')) as Array<{ endpoint_id: string; n: string | number }>;
  const oldestOfBacklog = (await testApp.db.knex('webhook_deliveries').where({ endpoint_id: downEndpoint }).orderBy('next_attempt_at').limit(4)).map(
    (row: { id: string }) => row.id,
  );

  const claimed = await claim({ limit: 16 });
  const counts = countByEndpoint(claimed);
  expect(counts.get(downEndpoint)).toBe(4);
  // Every healthy endpoint's deliveries (fewer than four each) go out in this claim, however old the backlog.
  for (const endpointId of healthyEndpoints) {
    const waiting = Number(pending.find((row) => row.endpoint_id === endpointId)?.n);
    expect(waiting).toBeGreaterThan(0);
    expect(waiting).toBeLessThan(4);
    expect(counts.get(endpointId)).toBe(waiting);
  }
  const backlogClaimed = claimed.filter((delivery) => delivery.endpoint.id === downEndpoint).map((delivery) => delivery.id);
  expect(backlogClaimed.sort()).toEqual(oldestOfBacklog.sort());

  // The next claims go on draining the backlog, four at a time, leased ones not taken again.
  const next = await claim({ limit: 16 });
  expect(countByEndpoint(next)).toEqual(new Map([[downEndpoint, 4]]));
  expect(next.some((delivery) => backlogClaimed.includes(delivery.id))).toBe(false);
});

it("takes no more of an endpoint than its slots left in this process, and nothing of a disabled endpoint's backlog", async () => {
  const busyLocation = newLocation();
  const busyEndpoint = await endpointAt(busyLocation);
  const offLocation = newLocation();
  const offEndpoint = await endpointAt(offLocation);
  await drainOutbox();
  await backlogOf(busyLocation, busyEndpoint, 20);
  await backlogOf(offLocation, offEndpoint, 20);
  await request(testApp.app).patch(`/v1/webhook-endpoints/${offEndpoint}`).set(testApp.as(offLocation)).send({ status: 'DISABLED' }).expect(200);

  expect(countByEndpoint(await claim({ limit: 100, busy: new Map([[busyEndpoint, 3]]) }))).toEqual(new Map([[busyEndpoint, 1]]));
  expect(countByEndpoint(await claim({ limit: 100, busy: new Map([[busyEndpoint, 4]]) }))).toEqual(new Map());
});

it('gives two claims at once disjoint deliveries', async () => {
  const locations = Array.from({ length: 4 }, () => newLocation());
  const endpoints = await Promise.all(locations.map(endpointAt));
  await drainOutbox();
  for (const [index, location] of locations.entries()) await backlogOf(location, endpoints[index] as string, 10);

  const [first, second] = await Promise.all([claim({ limit: 8 }), claim({ limit: 8 })]);
  const ids = [...first, ...second].map((delivery) => delivery.id);
  // Four endpoints of ten due each, four a claim from each: each claim leases its limit.
  expect(ids).toHaveLength(16);
  expect(new Set(ids).size).toBe(ids.length);
});
