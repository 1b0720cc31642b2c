import request from 'supertest';
import { newLocation } from '../factories/locations';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 36, item 4: one location registered 1,001 endpoints (every event
 * fans out to each) and the list answered all of them against the
 * document's bound. A location holds at most WEBHOOK_MAX_ENDPOINTS_PER_LOCATION
 * (16 by default, Stripe's limit), however the creates race, and the list is
 * cursor-paged like every other.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const create = (location: string, key?: string) => {
  const call = request(testApp.app).post('/v1/webhook-endpoints').set(testApp.as(location));
  return (key === undefined ? call : call.set('Idempotency-Key', key)).send({ url: 'https://hooks.example.com/in', enabledEvents: ['*'] });
};
const count = async (location: string) =>
  Number((await testApp.db.knex('webhook_endpoints').where({ location_id: location }).count({ count: '*' }).first())?.count);

describe('POST /v1/webhook-endpoints, at the cap', () => {
  it('answers 409 WEBHOOK_ENDPOINT_LIMIT_REACHED for the seventeenth, and a removal makes room again', async () => {
    const location = newLocation();
    const made = [];
    for (let i = 0; i < 16; i += 1) made.push((await create(location).expect(201)).body.id as string);
    const refused = await create(location).expect(409);
    expect(refused.body).toMatchObject({ messageKey: 'WEBHOOK_ENDPOINT_LIMIT_REACHED', message: expect.stringContaining('16') });
    expect(await count(location)).toBe(16);
    // Another location is not affected.
    await create(newLocation()).expect(201);
    await request(testApp.app).delete(`/v1/webhook-endpoints/${made[0]}`).set(testApp.as(location)).expect(204);
    await create(location).expect(201);
  });

  it('holds the cap when twenty creates race: at most sixteen are made, the rest answered 409', async () => {
    const location = newLocation();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(location, i % 2 === 0 ? `race-${i}` : undefined)));
    const statuses = answers.map(({ status }) => status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(16);
    expect(statuses.filter((status) => status === 409)).toHaveLength(4);
    expect(await count(location)).toBe(16);
  });
});

describe('GET /v1/webhook-endpoints', () => {
  it('is cursor-paged, oldest first', async () => {
    const location = newLocation();
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) ids.push((await create(location).expect(201)).body.id as string);
    const first = await request(testApp.app).get('/v1/webhook-endpoints').set(testApp.as(location)).expect(200);
    expect(first.body).toMatchObject({ results: 10, hasMore: true });
    expect(first.body.webhookEndpoints.map(({ id }: { id: string }) => id)).toEqual(ids.slice(0, 10));
    const second = await request(testApp.app).get(`/v1/webhook-endpoints?startingAfter=${ids[9]}&limit=5`).set(testApp.as(location)).expect(200);
    expect(second.body).toMatchObject({ results: 2, hasMore: false });
    expect(second.body.webhookEndpoints.map(({ id }: { id: string }) => id)).toEqual(ids.slice(10));
    await request(testApp.app).get('/v1/webhook-endpoints?limit=101').set(testApp.as(location)).expect(400);
  });
});
