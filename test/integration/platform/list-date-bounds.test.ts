import request from 'supertest';
import { sandboxRefundSettlesAfterMs } from '../../../src/refunds/refund-sweeps';
import { SandboxProcessor } from '../../../src/payment-processor/sandbox-processor';
import { createCustomer } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * The lists' date filters also bound the id their index is ordered by
 * (platform/db/cursor-page.ts), widened so that no row the date keeps is
 * lost: exact at the millisecond, and exact when a sandbox clock dates new
 * rows far ahead of the real time in their ids.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({
    processor: (db) => new SandboxProcessor(db.knex, { latencyMs: 0, refundSettlesAfterMs: sandboxRefundSettlesAfterMs(5) }),
  });
});
afterAll(() => testApp.close());

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The ids a list answers (its `customers` or `events`), up to 100. */
async function ids(location: string, path: string, dates: { createdAfter?: string; createdBefore?: string }): Promise<string[]> {
  const query = new URLSearchParams({ limit: '100', ...dates });
  const answer = await request(testApp.app).get(`${path}?${query.toString()}`).set(testApp.as(location)).expect(200);
  const listed = (answer.body.customers ?? answer.body.events) as Array<{ id: string }>;
  return listed.map((row) => row.id);
}

/** When a customer was created, as stored (the customer object does not show it). */
async function createdAtOf(location: string, id: string): Promise<number> {
  const row = (await testApp.db.knex('customers').select('created_at').where({ location_id: location, id }).first()) as { created_at: Date };
  return row.created_at.getTime();
}

async function eventsOf(location: string, query = ''): Promise<Array<{ id: string; type: string; createdAt: string }>> {
  return (await request(testApp.app).get(`/v1/events?limit=100${query}`).set(testApp.as(location)).expect(200)).body.events;
}

it('keeps a row exactly by its createdAt, to the millisecond, in the customers and events lists', async () => {
  const location = newLocation();
  const customer = await createCustomer(testApp, location);
  // created_at is stored to the microsecond; the dates here are whole milliseconds around it.
  const createdAt = await createdAtOf(location, customer.id);
  expect(await ids(location, '/v1/customers', { createdAfter: iso(createdAt - 1) })).toContain(customer.id);
  expect(await ids(location, '/v1/customers', { createdAfter: iso(createdAt + 1) })).not.toContain(customer.id);
  expect(await ids(location, '/v1/customers', { createdBefore: iso(createdAt + 1) })).toContain(customer.id);
  expect(await ids(location, '/v1/customers', { createdBefore: iso(createdAt) })).not.toContain(customer.id);

  const [event] = await eventsOf(location, '&type=customer.created');
  const eventAt = Date.parse(event?.createdAt as string);
  expect(await ids(location, '/v1/events', { createdAfter: iso(eventAt - 1), createdBefore: iso(eventAt + 1) })).toEqual([event?.id]);
  // createdAt shows milliseconds; PostgreSQL stores microseconds, so the event lies within [eventAt, eventAt + 1 ms).
  expect(await ids(location, '/v1/events', { createdAfter: iso(eventAt + 1) })).toEqual([]);
  expect(await ids(location, '/v1/events', { createdBefore: iso(eventAt) })).toEqual([]);
});

it('finds rows a sandbox clock dated a year ahead of their ids, and leaves out those made before the advance', async () => {
  const location = newLocation();
  const before = await createCustomer(testApp, location);
  await request(testApp.app)
    .post('/v1/sandbox/clock/advance')
    .set(testApp.as(location))
    .send({ seconds: 365 * 86_400 })
    .expect(200);
  const after = await createCustomer(testApp, location);
  const advancedBy = (await createdAtOf(location, after.id)) - Date.now();
  expect(advancedBy).toBeGreaterThan(364 * DAY_MS);

  const aMonthAhead = iso(Date.now() + 30 * DAY_MS);
  expect(await ids(location, '/v1/customers', { createdAfter: aMonthAhead })).toEqual([after.id]);
  expect(await ids(location, '/v1/customers', { createdBefore: aMonthAhead })).toEqual([before.id]);
  const events = await ids(location, '/v1/events', { createdAfter: aMonthAhead });
  expect(events).toHaveLength(1);
  expect(await ids(location, '/v1/events', { createdBefore: aMonthAhead })).toHaveLength(1);
  expect(await ids(location, `/v1/customers/${after.id}/events`, { createdAfter: aMonthAhead })).toEqual(events);
});

it('reads each type of a resource for `resource.*`, newest first across them, a page at a time', async () => {
  const location = newLocation();
  const customer = await createCustomer(testApp, location);
  await request(testApp.app).patch(`/v1/customers/${customer.id}`).set(testApp.as(location)).send({ description: 'one' }).expect(200);
  await createCustomer(testApp, location);
  await request(testApp.app).patch(`/v1/customers/${customer.id}`).set(testApp.as(location)).send({ description: 'two' }).expect(200);
  const ofCustomers = (await eventsOf(location)).filter((event) => event.type.startsWith('customer.')).map((event) => event.id);
  expect(ofCustomers).toHaveLength(4);

  const first = await request(testApp.app).get('/v1/events?type=customer.*&limit=3').set(testApp.as(location)).expect(200);
  expect(first.body.hasMore).toBe(true);
  const rest = await request(testApp.app)
    .get(`/v1/events?type=customer.*&limit=3&startingAfter=${first.body.events[2].id as string}`)
    .set(testApp.as(location))
    .expect(200);
  expect(rest.body.hasMore).toBe(false);
  expect([...first.body.events, ...rest.body.events].map((event: { id: string }) => event.id)).toEqual(ofCustomers);
});
