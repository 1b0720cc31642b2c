import request from 'supertest';
import { confirm } from '../../../factories/checkout';
import { cardInput, createCustomer, saveCard } from '../../../factories/customers';
import { newLocation } from '../../../factories/locations';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * A card's `lastUsedAt` (Hyperswitch's `last_used_at`): set with an approved
 * authorization, never by a decline; the customer's card list puts the
 * defaults first, then the most recently used, then the never-used by age.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

async function payWith(location: string, customerId: string, cardId: string, expected: RegExp): Promise<void> {
  const intent = await request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({ amount: 500, currency: 'USD', externalReferenceId: 'order', customerId })
    .expect(201);
  await confirm(testApp, location, intent.body.id, { paymentMethodId: cardId }).expect(200, expected);
}

const listed = async (location: string, customerId: string) =>
  (await request(testApp.app).get(`/v1/customers/${customerId}/payment-methods`).set(testApp.as(location)).expect(200)).body as {
    results: number;
    paymentMethods: Array<{ id: string; lastUsedAt: string | null }>;
  };

const card = (location: string, customerId: string, lastFour: string, fingerprint: string) =>
  saveCard(testApp, location, customerId, cardInput({ fingerprint, card: { type: 'visa', lastFour, expiry: { month: '3', year: '2031' } } }));

it('lists the defaults first, then the most recently used, then the never-used oldest first; a decline marks nothing', async () => {
  const location = newLocation();
  const customerId = (await createCustomer(testApp, location)).id;
  const oldest = await card(location, customerId, '4242', 'fp-a');
  const second = await card(location, customerId, '1881', 'fp-b');
  const declined = await card(location, customerId, '0002', 'fp-c');
  const neverUsed = await card(location, customerId, '5556', 'fp-d');
  const theDefault = await card(location, customerId, '4444', 'fp-e');
  await request(testApp.app)
    .post(`/v1/customers/${customerId}/payment-methods/defaults`)
    .set(testApp.as(location))
    .send({ paymentMethodId: theDefault.id, contextName: 'web' })
    .expect(200);
  expect((await listed(location, customerId)).paymentMethods.every((method) => method.lastUsedAt === null)).toBe(true);

  await payWith(location, customerId, oldest.id, /"status":"REQUIRES_CAPTURE"/);
  await payWith(location, customerId, second.id, /"status":"REQUIRES_CAPTURE"/);
  await payWith(location, customerId, declined.id, /"status":"REQUIRES_PAYMENT_METHOD"/);

  const list = await listed(location, customerId);
  expect(list.results).toBe(5);
  expect(list.paymentMethods.map(({ id }) => id)).toEqual([theDefault.id, second.id, oldest.id, declined.id, neverUsed.id]);
  const byId = new Map(list.paymentMethods.map((method) => [method.id, method.lastUsedAt]));
  expect(byId.get(second.id)).toMatch(/Z$/);
  expect(Date.parse(byId.get(second.id) as string)).toBeGreaterThanOrEqual(Date.parse(byId.get(oldest.id) as string));
  expect(byId.get(declined.id)).toBeNull();
  expect(byId.get(neverUsed.id)).toBeNull();

  // Used again, the oldest comes before the second; the default stays first.
  await payWith(location, customerId, oldest.id, /"status":"REQUIRES_CAPTURE"/);
  expect((await listed(location, customerId)).paymentMethods.map(({ id }) => id)).toEqual([theDefault.id, oldest.id, second.id, declined.id, neverUsed.id]);
});
