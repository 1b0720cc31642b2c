import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const UNKNOWN_ID = '0190a6e4-0000-7000-8000-0000000000ff';

/** A customer at a fresh location with two saved cards. */
async function customerWithCards() {
  const location = newLocation();
  const customer = await createCustomer(testApp, location);
  const first = await saveCard(testApp, location, customer.id);
  const second = await saveCard(
    testApp,
    location,
    customer.id,
    cardInput({ card: { type: 'mastercard', lastFour: '4444', expiry: { month: '05', year: String(new Date().getUTCFullYear() + 3) } } }),
  );
  return { location, customer, first, second };
}

function setDefault(location: string, customerId: string, body: unknown) {
  return request(testApp.app)
    .post(`/v1/customers/${customerId}/payment-methods/defaults`)
    .set(testApp.as(location))
    .send(body as object);
}

function defaultPath(customerId: string, contextName: string): string {
  return `/v1/customers/${customerId}/payment-methods/defaults/${encodeURIComponent(contextName)}`;
}

describe('POST /v1/customers/{id}/payment-methods/defaults', () => {
  it('sets the default for a context and answers 200 with the binding', async () => {
    const { location, customer, first } = await customerWithCards();
    const response = await setDefault(location, customer.id, { paymentMethodId: first.id, contextName: 'web-checkout' }).expect(200);
    expect(response.body).toEqual({ paymentMethodId: first.id, contextName: 'web-checkout' });
    await request(testApp.app).get(defaultPath(customer.id, 'web-checkout')).set(testApp.as(location)).expect(200, response.body);
  });

  it('overwrites the default on a second set for the same context and keeps other contexts apart', async () => {
    const { location, customer, first, second } = await customerWithCards();
    await setDefault(location, customer.id, { paymentMethodId: first.id, contextName: 'web-checkout' }).expect(200);
    await setDefault(location, customer.id, { paymentMethodId: first.id, contextName: 'subscription' }).expect(200);
    await setDefault(location, customer.id, { paymentMethodId: second.id, contextName: 'web-checkout' }).expect(200);

    await request(testApp.app)
      .get(defaultPath(customer.id, 'web-checkout'))
      .set(testApp.as(location))
      .expect(200, { paymentMethodId: second.id, contextName: 'web-checkout' });
    await request(testApp.app)
      .get(defaultPath(customer.id, 'subscription'))
      .set(testApp.as(location))
      .expect(200, { paymentMethodId: first.id, contextName: 'subscription' });
  });

  it('answers 200 to 30 concurrent sets on one context and leaves exactly one valid binding', async () => {
    const { location, customer, first, second } = await customerWithCards();
    const cards = [first.id, second.id];
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, index) => setDefault(location, customer.id, { paymentMethodId: cards[index % 2], contextName: 'race' })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200));

    const rows = await testApp.db.knex('default_payment_methods').where({ location_id: location, customer_id: customer.id });
    expect(rows).toHaveLength(1);
    expect(cards).toContain(rows[0].payment_method_id);
    const read = await request(testApp.app).get(defaultPath(customer.id, 'race')).set(testApp.as(location)).expect(200);
    expect(read.body.paymentMethodId).toBe(rows[0].payment_method_id);
  });

  it('accepts an upper-case payment method id and answers it in canonical lower case', async () => {
    const { location, customer, first } = await customerWithCards();
    const response = await setDefault(location, customer.id, { paymentMethodId: first.id.toUpperCase(), contextName: 'c' }).expect(200);
    expect(response.body.paymentMethodId).toBe(first.id);
  });

  it('answers three distinct 404s: unknown customer, unknown card, card of another customer', async () => {
    const { location, customer } = await customerWithCards();
    const other = await createCustomer(testApp, location);
    const othersCard = await saveCard(testApp, location, other.id);

    const noCustomer = await setDefault(location, UNKNOWN_ID, { paymentMethodId: othersCard.id, contextName: 'c' }).expect(404);
    const noCard = await setDefault(location, customer.id, { paymentMethodId: UNKNOWN_ID, contextName: 'c' }).expect(404);
    const notOwned = await setDefault(location, customer.id, { paymentMethodId: othersCard.id, contextName: 'c' }).expect(404);

    expect([noCustomer.body, noCard.body, notOwned.body]).toMatchObject([
      { code: 2001, messageKey: 'CUSTOMER_NOT_FOUND' },
      { code: 2002, messageKey: 'PAYMENT_METHOD_NOT_FOUND' },
      { code: 2003, messageKey: 'PAYMENT_METHOD_NOT_OWNED' },
    ]);
    expect(await testApp.db.knex('default_payment_methods').where({ location_id: location })).toEqual([]);
  });

  it.each([
    ['no body', undefined],
    ['an empty object', {}],
    ['an array', [{ paymentMethodId: UNKNOWN_ID, contextName: 'c' }]],
    ['a string', 'web-checkout'],
    ['null', null],
  ])('refuses %s with 400', async (_case, body) => {
    const { location, customer } = await customerWithCards();
    const call = request(testApp.app).post(`/v1/customers/${customer.id}/payment-methods/defaults`).set(testApp.as(location));
    const response = body === undefined ? await call : await call.set('Content-Type', 'application/json').send(JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, requestId: expect.any(String) });
  });

  it.each([
    ['paymentMethodId', (_cardId: string) => ({ paymentMethodId: 'not-a-uuid', contextName: 'c' })],
    ['contextName', (cardId: string) => ({ paymentMethodId: cardId, contextName: '' })],
    ['contextName', (cardId: string) => ({ paymentMethodId: cardId, contextName: 'x'.repeat(256) })],
    ['contextName', (cardId: string) => ({ paymentMethodId: cardId, contextName: 'tab\there' })],
    ['contextName', (cardId: string) => ({ paymentMethodId: cardId, contextName: 'nul\u0000' })],
    ['contextName', (cardId: string) => ({ paymentMethodId: cardId })],
  ])('refuses a bad %s with 400 naming it and binds nothing', async (fieldName, bodyFor) => {
    const { location, customer, first } = await customerWithCards();
    const response = await setDefault(location, customer.id, bodyFor(first.id)).expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1000, messageKey: 'VALIDATION_FAILED', fieldName });
    expect(await testApp.db.knex('default_payment_methods').where({ location_id: location })).toEqual([]);
  });

  it('accepts a 255-character context name with spaces and non-ASCII letters', async () => {
    const { location, customer, first } = await customerWithCards();
    const contextName = `Caf\u00e9 checkout ${'x'.repeat(241)}`;
    expect(contextName).toHaveLength(255);
    await setDefault(location, customer.id, { paymentMethodId: first.id, contextName }).expect(200);
    await request(testApp.app).get(defaultPath(customer.id, contextName)).set(testApp.as(location)).expect(200, { paymentMethodId: first.id, contextName });
  });
});

describe('GET and DELETE /v1/customers/{id}/payment-methods/defaults/{contextName}', () => {
  it('deletes the default answering 200 with the removed binding, then answers 404 DEFAULT_PAYMENT_METHOD_NOT_SET', async () => {
    const { location, customer, first } = await customerWithCards();
    await setDefault(location, customer.id, { paymentMethodId: first.id, contextName: 'kiosk' }).expect(200);

    await request(testApp.app)
      .delete(defaultPath(customer.id, 'kiosk'))
      .set(testApp.as(location))
      .expect(200, { paymentMethodId: first.id, contextName: 'kiosk' });

    const read = await request(testApp.app).get(defaultPath(customer.id, 'kiosk')).set(testApp.as(location)).expect(404);
    const again = await request(testApp.app).delete(defaultPath(customer.id, 'kiosk')).set(testApp.as(location)).expect(404);
    for (const response of [read, again]) {
      expect(response.body).toMatchObject({ status: 404, code: 2004, messageKey: 'DEFAULT_PAYMENT_METHOD_NOT_SET' });
    }
    // The card itself stays saved.
    const list = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(location));
    expect(list.body.results).toBe(2);
  });

  it('answers 404 CUSTOMER_NOT_FOUND, a code distinct from "no default", for an unknown customer', async () => {
    const location = newLocation();
    for (const method of ['get', 'delete'] as const) {
      const response = await request(testApp.app)[method](defaultPath(UNKNOWN_ID, 'kiosk')).set(testApp.as(location)).expect(404);
      expect(response.body).toMatchObject({ status: 404, code: 2001, messageKey: 'CUSTOMER_NOT_FOUND' });
    }
  });

  it('answers 400 for a context name over 255 characters or holding a control character', async () => {
    const { location, customer } = await customerWithCards();
    for (const contextName of ['y'.repeat(256), 'bell\u0007']) {
      const response = await request(testApp.app).get(defaultPath(customer.id, contextName)).set(testApp.as(location)).expect(400);
      expect(response.body.fieldName).toBe('contextName');
    }
  });
});
