import request from 'supertest';
import { SCOPES } from '../../../src/auth/scopes';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

const LIMIT = { requests: 3, windowSeconds: 60 };

let first: TestApp;
let second: TestApp;
beforeAll(async () => {
  first = await startTestApp({ rateLimit: LIMIT });
  // A second app (a replica) on the same database.
  second = await startTestApp({ rateLimit: LIMIT, database: first.db });
});
afterAll(() => first.close());

function listCustomers(testApp: TestApp, location: string, authorization = testApp.adminAuthorization) {
  return request(testApp.app)
    .get('/v1/customers?externalReferenceId=x')
    .set({ ...authorization, [LOCATION_HEADER]: location });
}

describe('rate limits per client and location', () => {
  it('counts down in the RateLimit header, then answers 429 with Retry-After', async () => {
    const location = newLocation();
    for (const remaining of [2, 1, 0]) {
      const response = await listCustomers(first, location).expect(200);
      expect(response.headers['ratelimit-policy']).toBe('"client-location";q=3;w=60');
      expect(response.headers.ratelimit).toMatch(new RegExp(`^"client-location";r=${remaining};t=\\d+$`));
    }
    const refused = await listCustomers(first, location).expect(429);
    expect(refused.body).toMatchObject({ status: 429, code: 4292, messageKey: 'RATE_LIMITED' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.ratelimit).toMatch(/^"client-location";r=0;t=\d+$/);
  });

  it('a refused write changes nothing', async () => {
    const location = newLocation();
    for (let index = 0; index < 3; index += 1) await listCustomers(first, location).expect(200);
    await request(first.app).post('/v1/customers').set(first.as(location)).send({}).expect(429);
    expect(await first.db.knex('customers').where({ location_id: location })).toEqual([]);
  });

  it('keeps other locations and other clients on budgets of their own', async () => {
    const location = newLocation();
    for (let index = 0; index < 3; index += 1) await listCustomers(first, location).expect(200);
    await listCustomers(first, location).expect(429);
    await listCustomers(first, newLocation()).expect(200);
    const otherClient = await first.tokenFor({ scopes: SCOPES, locations: ['*'] }, 'another-client');
    await listCustomers(first, location, { Authorization: `Bearer ${otherClient}` }).expect(200);
  });

  it('is one budget across replicas: the count lives in PostgreSQL', async () => {
    const location = newLocation();
    await listCustomers(first, location).expect(200);
    await listCustomers(second, location).expect(200);
    await listCustomers(first, location).expect(200);
    await listCustomers(second, location).expect(429);
  });

  it('leases points from PostgreSQL in batches, yet two replicas together never pass the budget', async () => {
    const budget = { requests: 100, windowSeconds: 60 };
    // Leases of two points (a fiftieth of 100): each replica may be left holding one.
    const replicas = [await startTestApp({ rateLimit: budget, database: first.db }), await startTestApp({ rateLimit: budget, database: first.db })];
    const location = newLocation();
    const statuses: number[] = [];
    for (let index = 0; index < 110; index += 1) {
      statuses.push((await listCustomers(replicas[index % 2] as TestApp, location)).status);
    }
    const allowed = statuses.filter((status) => status === 200).length;
    expect(allowed).toBeLessThanOrEqual(100);
    expect(allowed).toBeGreaterThanOrEqual(98);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
  });

  it('does not count requests refused before the location is known to be permitted', async () => {
    const location = newLocation();
    const elsewhere = await first.tokenFor({ scopes: SCOPES, locations: ['somewhere-else'] });
    for (let index = 0; index < 5; index += 1) {
      await listCustomers(first, location, { Authorization: `Bearer ${elsewhere}` }).expect(403);
    }
    // Had the 403s been counted, the budget of 3 would be spent.
    await listCustomers(first, location).expect(200);
  });
});
