import request from 'supertest';
import { createCustomer } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';
import { claimDueDeliveries, fanOutEvents, recordAttempts, type ClaimedDelivery } from '../../../src/webhooks/webhook-deliveries.repository';

/**
 * Attempts recorded in one batch (the dispatcher's AttemptRecorder): every
 * attempt listed, every delivery moved on, and the endpoint's failing_since
 * as its last attempt of the batch leaves it, whatever came before.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

/** Two deliveries claimed for one endpoint of a fresh location. */
async function twoClaimed(): Promise<{ location: string; endpointId: string; claimed: ClaimedDelivery[] }> {
  const location = newLocation();
  const endpoint = await request(testApp.app)
    .post('/v1/webhook-endpoints')
    .set(testApp.as(location))
    .send({ url: 'http://127.0.0.1:9/hook', enabledEvents: ['*'] })
    .expect(201);
  await createCustomer(testApp, location);
  await createCustomer(testApp, location);
  while ((await fanOutEvents(testApp.db.knex, 200)) > 0);
  const claimed = (await claimDueDeliveries(testApp.db.knex, { limit: 100, perEndpoint: 100, busy: new Map(), leaseMs: 60_000 })).filter(
    (delivery) => delivery.locationId === location,
  );
  expect(claimed).toHaveLength(2);
  return { location, endpointId: endpoint.body.id as string, claimed };
}

const succeeded = { outcome: 'SUCCEEDED' as const, statusCode: 204, durationMs: 3, error: null };
const failed = { outcome: 'FAILED' as const, statusCode: 500, durationMs: 4, error: 'answered 500' };

async function failingSince(location: string, endpointId: string): Promise<Date | null> {
  const row = (await testApp.db.knex('webhook_endpoints').select('failing_since').where({ location_id: location, id: endpointId }).first()) as {
    failing_since: Date | null;
  };
  return row.failing_since;
}

it('records every attempt of a batch and moves each delivery on', async () => {
  const { location, claimed } = await twoClaimed();
  const [first, second] = claimed as [ClaimedDelivery, ClaimedDelivery];
  const retryAt = new Date(Date.now() + 60_000);
  await recordAttempts(testApp.db.knex, [
    { delivery: first, result: succeeded, next: { status: 'SUCCEEDED' } },
    { delivery: second, result: failed, next: { status: 'PENDING', retryAt } },
  ]);
  const deliveries = (await testApp.db.knex('webhook_deliveries').select('id', 'status', 'next_attempt_at').where({ location_id: location })) as Array<{
    id: string;
    status: string;
    next_attempt_at: Date;
  }>;
  expect(deliveries.find(({ id }) => id === first.id)?.status).toBe('SUCCEEDED');
  expect(deliveries.find(({ id }) => id === second.id)).toMatchObject({ status: 'PENDING', next_attempt_at: retryAt });
  const attempts = await testApp.db.knex('webhook_delivery_attempts').select('delivery_id', 'outcome', 'status_code').where({ location_id: location });
  expect(attempts).toEqual(
    expect.arrayContaining([
      { delivery_id: first.id, outcome: 'SUCCEEDED', status_code: 204 },
      { delivery_id: second.id, outcome: 'FAILED', status_code: 500 },
    ]),
  );
});

it("leaves the endpoint's failing_since as the batch's last attempt to it says: a success after a failure clears it, a failure after a success sets it", async () => {
  const cleared = await twoClaimed();
  await recordAttempts(testApp.db.knex, [
    { delivery: cleared.claimed[0] as ClaimedDelivery, result: failed, next: { status: 'FAILED' } },
    { delivery: cleared.claimed[1] as ClaimedDelivery, result: succeeded, next: { status: 'SUCCEEDED' } },
  ]);
  expect(await failingSince(cleared.location, cleared.endpointId)).toBeNull();

  const set = await twoClaimed();
  await recordAttempts(testApp.db.knex, [
    { delivery: set.claimed[0] as ClaimedDelivery, result: succeeded, next: { status: 'SUCCEEDED' } },
    { delivery: set.claimed[1] as ClaimedDelivery, result: failed, next: { status: 'FAILED' } },
  ]);
  expect(await failingSince(set.location, set.endpointId)).toBeInstanceOf(Date);
});
