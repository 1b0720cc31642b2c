import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SCOPES, type Scope } from '../../../src/auth/scopes';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
let location: string;
let customerId: string;
let cardId: string;

beforeAll(async () => {
  testApp = await startTestApp();
  location = newLocation();
  customerId = (await createCustomer(testApp, location)).id;
  cardId = (await saveCard(testApp, location, customerId)).id;
  await request(testApp.app)
    .post(`/v1/customers/${customerId}/payment-methods/defaults`)
    .set(testApp.as(location))
    .send({ paymentMethodId: cardId, contextName: 'web' })
    .expect(200);
});
afterAll(() => testApp.close());

type Headers = Record<string, string>;

interface Operation {
  name: string;
  scope: Scope;
  /** Runs before the row counts are taken. */
  prepare?(): Promise<void>;
  /** Sends the operation with these headers. */
  call(headers: Headers): Promise<request.Response>;
}

// A fresh card for each delete, so an allowed delete does not break the next test.
let spareCardId = '';
async function saveSpareCard(): Promise<void> {
  spareCardId = (await saveCard(testApp, location, customerId, cardInput({ fingerprint: `fp-${randomUUID()}` }))).id;
}

const operations: Operation[] = [
  { name: 'POST /v1/customers', scope: 'spi.customers:write', call: (headers) => request(testApp.app).post('/v1/customers').set(headers).send({}) },
  { name: 'GET /v1/customers/{id}', scope: 'spi.customers:read', call: (headers) => request(testApp.app).get(`/v1/customers/${customerId}`).set(headers) },
  { name: 'GET /v1/customers?externalReferenceId=', scope: 'spi.customers:read', call: (headers) => request(testApp.app).get('/v1/customers?externalReferenceId=ext-1').set(headers) },
  {
    name: 'GET /v1/customers/{id}/payment-methods',
    scope: 'spi.customers:read',
    call: (headers) => request(testApp.app).get(`/v1/customers/${customerId}/payment-methods`).set(headers),
  },
  {
    name: 'GET .../defaults/{contextName}',
    scope: 'spi.customers:read',
    call: (headers) => request(testApp.app).get(`/v1/customers/${customerId}/payment-methods/defaults/web`).set(headers),
  },
  {
    name: 'POST .../defaults',
    scope: 'simplified-payments-integration.server:write',
    call: (headers) =>
      request(testApp.app).post(`/v1/customers/${customerId}/payment-methods/defaults`).set(headers).send({ paymentMethodId: cardId, contextName: 'web' }),
  },
  {
    name: 'DELETE .../defaults/{contextName}',
    scope: 'simplified-payments-integration.server:write',
    call: (headers) => request(testApp.app).delete(`/v1/customers/${customerId}/payment-methods/defaults/never-set`).set(headers),
  },
  {
    name: 'POST /v1/customers/{id}/payment-methods',
    scope: 'simplified-payments-integration.server:write',
    call: (headers) => request(testApp.app).post(`/v1/customers/${customerId}/payment-methods`).set(headers).send(cardInput()),
  },
  {
    name: 'DELETE .../payment-methods/{paymentMethodId}',
    scope: 'simplified-payments-integration.server:write',
    prepare: saveSpareCard,
    call: (headers) => request(testApp.app).delete(`/v1/customers/${customerId}/payment-methods/${spareCardId}`).set(headers),
  },
];

async function rowCounts(): Promise<number[]> {
  const tables = ['customers', 'payment_methods', 'default_payment_methods'];
  const counts = await Promise.all(tables.map((table) => testApp.db.knex(table).count<{ count: string }[]>('* as count')));
  return counts.map((rows) => Number(rows[0]?.count));
}

describe.each(operations)('$name', (operation) => {
  it(`is allowed with ${operation.scope} alone`, async () => {
    const token = await testApp.tokenFor({ scopes: [operation.scope], locations: [location] });
    await operation.prepare?.();
    const response = await operation.call({ Authorization: `Bearer ${token}`, [LOCATION_HEADER]: location });
    expect(response.status).toBeLessThan(500);
    expect([401, 403]).not.toContain(response.status);
  });

  it(`is refused with 403 insufficient_scope with every other scope, changing nothing`, async () => {
    const others = SCOPES.filter((scope) => scope !== operation.scope && scope !== 'simplified-payments-integration:read');
    const token = await testApp.tokenFor({ scopes: others, locations: ['*'] });
    await operation.prepare?.();
    const before = await rowCounts();
    const response = await operation.call({ Authorization: `Bearer ${token}`, [LOCATION_HEADER]: location });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ status: 403, code: 4031, messageKey: 'INSUFFICIENT_SCOPE' });
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="customer-payment-profiles", error="insufficient_scope", scope="${operation.scope}"`,
    );
    expect(await rowCounts()).toEqual(before);
  });
});

describe('simplified-payments-integration:read on the two customer reads', () => {
  it.each([
    ['GET /v1/customers/{id}/payment-methods', () => `/v1/customers/${customerId}/payment-methods`],
    ['GET .../defaults/{contextName}', () => `/v1/customers/${customerId}/payment-methods/defaults/web`],
  ])('%s answers 401 without a valid Platform-Session-Secret', async (_name, path) => {
    const token = await testApp.tokenFor({ scopes: ['simplified-payments-integration:read'], locations: ['*'] });
    for (const secret of [undefined, 'not-a-session-secret']) {
      const call = request(testApp.app).get(path()).set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location);
      const response = await (secret === undefined ? call : call.set('Platform-Session-Secret', secret));
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 4004, messageKey: 'SESSION_SECRET_INVALID' });
    }
  });

  it('does not grant the other reads', async () => {
    const token = await testApp.tokenFor({ scopes: ['simplified-payments-integration:read'], locations: ['*'] });
    const response = await request(testApp.app).get(`/v1/customers/${customerId}`).set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location);
    expect(response.status).toBe(403);
  });
});

describe('location entitlement', () => {
  it('allows the locations the token lists, and refuses others with 403 changing nothing', async () => {
    const other = newLocation();
    const token = await testApp.tokenFor({ scopes: SCOPES, locations: [location, 'loc-x'] });
    await request(testApp.app).get(`/v1/customers/${customerId}`).set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location).expect(200);

    const before = await rowCounts();
    const refused = await request(testApp.app).post('/v1/customers').set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, other).send({});
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 4032, messageKey: 'LOCATION_NOT_PERMITTED' });
    expect(await rowCounts()).toEqual(before);
  });

  it('lets a token for every location ("*") act anywhere', async () => {
    const token = await testApp.tokenFor({ scopes: ['spi.customers:write'], locations: ['*'] });
    await request(testApp.app).post('/v1/customers').set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, newLocation()).send({}).expect(200);
  });
});
