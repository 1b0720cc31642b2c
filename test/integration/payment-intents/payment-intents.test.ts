import request from 'supertest';
import { createCustomer, saveCard } from '../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { createMandate } from '../../factories/mandates';
import { startTestApp, TEST_CORS_ORIGIN, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function createIntent(location: string, body: object) {
  return request(testApp.app).post('/v1/payment-intents').set(testApp.as(location)).send(body);
}

const minimal = { amount: 1250, currency: 'USD', externalReferenceId: 'order-7' };

describe('POST /v1/payment-intents', () => {
  it('answers 201 with every field of the PaymentIntent, defaults and nulls included', async () => {
    const response = await createIntent(newLocation(), minimal).expect(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      externalReferenceId: 'order-7',
      sessionSecret: expect.stringMatching(/^PI_[0-9a-f-]{36}_SECRET_[A-Za-z0-9_-]{32}$/),
      amount: 1250,
      currency: 'USD',
      captureMethod: 'MANUAL',
      status: 'REQUIRES_PAYMENT_METHOD',
      creationDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      customerId: null,
      amountDetails: { tip: 0 },
      email: null,
      paymentMethodConfigurationDetails: null,
      standingInstructionType: null,
      offSession: false,
      latestPayment: null,
      mandateId: null,
      paymentMethodId: null,
      lastPaymentError: null,
      cancellationReason: null,
      amountCaptured: 0,
      amountRefunded: 0,
      refundableAmount: 0,
      amountDisputed: 0,
      disputeStatus: null,
      paymentMethodOptions: { card: { partialAuthorization: false } },
      amountRequested: null,
      contextName: null,
    });
    expect(response.body.sessionSecret.startsWith(`PI_${response.body.id}_SECRET_`)).toBe(true);
  });

  it('keeps every optional field, and reads back the same intent', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const card = await saveCard(testApp, location, customer.id);
    const mandate = await createMandate(testApp, location, customer.id, card.id);
    const body = {
      amount: 99_999_999,
      currency: 'CAD',
      externalReferenceId: '5f0c2a5e-1b7d-4c1e-9a51-0d7c2f1e9b00',
      customerId: customer.id,
      captureMethod: 'AUTOMATIC',
      email: 'ada@example.com',
      amountDetails: { tip: 200 },
      paymentMethodConfigurationId: '0190a6e4-0000-7000-8000-0000000000aa',
      standingInstructionType: 'RECURRING',
      offSession: true,
      mandateId: mandate.id,
      contextName: 'gold-plan',
    };
    const created = await createIntent(location, body).expect(201);
    const { paymentMethodConfigurationId, ...answeredAsGiven } = body;
    expect(created.body).toMatchObject({ ...answeredAsGiven, paymentMethodConfigurationDetails: { id: paymentMethodConfigurationId } });
    expect(created.body.paymentMethodConfigurationId).toBeUndefined();
    const read = await request(testApp.app).get(`/v1/payment-intents/${created.body.id}`).set(testApp.as(location)).expect(200);
    expect(read.body).toEqual(created.body);
  });

  it.each([
    ['amount', { amount: -5 }],
    ['amount', { amount: 0 }],
    ['amount', { amount: 12.5 }],
    ['amount', { amount: '1250' }],
    ['amount', { amount: 100_000_000 }],
    ['currency', { currency: 'usd' }],
    ['currency', { currency: 'EUR' }],
    ['currency', { currency: 'US' }],
    ['externalReferenceId', { externalReferenceId: '' }],
    ['externalReferenceId', { externalReferenceId: 'x'.repeat(256) }],
    ['customerId', { customerId: 'not-a-uuid' }],
    ['captureMethod', { captureMethod: 'LATER' }],
    ['standingInstructionType', { standingInstructionType: 'WEEKLY' }],
    ['offSession', { offSession: 'yes' }],
    ['email', { email: 'not-an-email' }],
    ['amountDetails.tip', { amountDetails: { tip: -1 } }],
    ['paymentMethodConfigurationId', { paymentMethodConfigurationId: 'abc' }],
  ])('refuses a bad %s with 400 naming it, creating nothing', async (fieldName, overrides) => {
    const location = newLocation();
    const response = await createIntent(location, { ...minimal, ...overrides }).expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1000, messageKey: 'VALIDATION_FAILED', fieldName });
    expect(await testApp.db.knex('payment_intents').where({ location_id: location })).toEqual([]);
  });

  it.each([
    ['amount', { amount: 12.5 }, 'Must be a whole number.'],
    ['amount', { amount: '1250' }, 'Must be a whole number.'],
    ['amount', { amount: 0 }, 'Must be at least 1.'],
    ['amount', { amount: 100_000_000 }, 'Must be at most 99999999.'],
    ['externalReferenceId', { externalReferenceId: 'x'.repeat(256) }, 'Must be at most 255 characters long.'],
    ['externalReferenceId', { externalReferenceId: undefined }, 'Required.'],
    ['captureMethod', { captureMethod: 'LATER' }, 'Must be one of "MANUAL", "AUTOMATIC".'],
    ['offSession', { offSession: 'yes' }, 'Must be true or false.'],
    ['email', { email: 'not-an-email' }, 'Must be an e-mail address.'],
    ['currency', { currency: 'EUR' }, 'Must be one of USD, CAD.'],
  ])('explains a bad %s in its own words, not the validator’s (%j)', async (fieldName, overrides, message) => {
    const response = await createIntent(newLocation(), { ...minimal, ...overrides }).expect(400);
    expect(response.body).toMatchObject({ fieldName, message });
  });

  it('answers 404 naming customerId for a customer unknown at this location', async () => {
    const owner = newLocation();
    const customer = await createCustomer(testApp, owner);
    const response = await createIntent(newLocation(), { ...minimal, customerId: customer.id }).expect(404);
    expect(response.body).toMatchObject({ code: 2001, messageKey: 'CUSTOMER_NOT_FOUND', fieldName: 'customerId' });
  });
});

describe('GET /v1/payment-intents/{id}', () => {
  it('answers 400 for a malformed id and 404 for an unknown one or one of another location', async () => {
    const location = newLocation();
    const created = await createIntent(location, minimal).expect(201);
    const malformed = await request(testApp.app).get('/v1/payment-intents/pi_123').set(testApp.as(location)).expect(400);
    expect(malformed.body.fieldName).toBe('id');
    const unknown = await request(testApp.app).get('/v1/payment-intents/0190a6e4-0000-7000-8000-0000000000bb').set(testApp.as(location)).expect(404);
    expect(unknown.body).toMatchObject({ status: 404, code: 2006, messageKey: 'PAYMENT_INTENT_NOT_FOUND' });
    const elsewhere = await request(testApp.app).get(`/v1/payment-intents/${created.body.id}`).set(testApp.as(newLocation())).expect(404);
    expect(elsewhere.body).toMatchObject({ code: 2006, messageKey: 'PAYMENT_INTENT_NOT_FOUND' });
  });
});

describe('POST /v1/payment-intents/{id}/cancel', () => {
  it('cancels, then answers 409 naming the status on a second cancel', async () => {
    const location = newLocation();
    const created = await createIntent(location, minimal).expect(201);
    const canceled = await request(testApp.app).post(`/v1/payment-intents/${created.body.id}/cancel`).set(testApp.as(location)).expect(200);
    expect(canceled.body).toEqual({ ...created.body, status: 'CANCELED' });
    const again = await request(testApp.app).post(`/v1/payment-intents/${created.body.id}/cancel`).set(testApp.as(location)).expect(409);
    expect(again.body).toMatchObject({ status: 409, code: 3002, messageKey: 'PAYMENT_INTENT_STATUS_CONFLICT', message: expect.stringContaining('CANCELED') });
  });

  it('answers 409 naming SUCCEEDED for a succeeded intent, and 404 under another location', async () => {
    const location = newLocation();
    const created = await createIntent(location, minimal).expect(201);
    await request(testApp.app).post(`/v1/payment-intents/${created.body.id}/cancel`).set(testApp.as(newLocation())).expect(404);
    // The processor's move, which this service has no endpoint for.
    await testApp.db.knex('payment_intents').where({ location_id: location, id: created.body.id }).update({ status: 'SUCCEEDED' });
    const response = await request(testApp.app).post(`/v1/payment-intents/${created.body.id}/cancel`).set(testApp.as(location)).expect(409);
    expect(response.body.message).toContain('SUCCEEDED');
  });
});

describe('session secrets on the browser-side reads', () => {
  let location: string;
  let customerId: string;
  let otherCustomerId: string;
  let intentId: string;
  const secrets: Record<string, string> = {};
  let browserToken: string;
  let readerToken: string;

  beforeAll(async () => {
    location = newLocation();
    customerId = (await createCustomer(testApp, location)).id;
    otherCustomerId = (await createCustomer(testApp, location)).id;
    const card = await saveCard(testApp, location, customerId);
    await request(testApp.app)
      .post(`/v1/customers/${customerId}/payment-methods/defaults`)
      .set(testApp.as(location))
      .send({ paymentMethodId: card.id, contextName: 'web' })
      .expect(200);

    const intentFor = async (customer: string) => (await createIntent(location, { ...minimal, customerId: customer }).expect(201)).body;
    const own = await intentFor(customerId);
    intentId = own.id;
    secrets.own = own.sessionSecret;
    secrets.otherCustomer = (await intentFor(otherCustomerId)).sessionSecret;
    const canceled = await intentFor(customerId);
    await request(testApp.app).post(`/v1/payment-intents/${canceled.id}/cancel`).set(testApp.as(location)).expect(200);
    secrets.canceled = canceled.sessionSecret;
    const expired = await intentFor(customerId);
    await testApp.db
      .knex('payment_intents')
      .where({ id: expired.id })
      .update({ created_at: testApp.db.knex.raw("now() - interval '25 hours'") });
    secrets.expired = expired.sessionSecret;
    secrets.malformed = 'PI_nope_SECRET_short';
    secrets.forged = `${own.sessionSecret.slice(0, -1)}${own.sessionSecret.endsWith('A') ? 'B' : 'A'}`;

    browserToken = await testApp.tokenFor({ scopes: ['simplified-payments-integration:read'], locations: [location] });
    readerToken = await testApp.tokenFor({ scopes: ['spi.customers:read'], locations: [location] });
  });

  const reads: Array<[string, () => string]> = [
    ['GET /v1/customers/{id}/payment-methods', () => `/v1/customers/${customerId}/payment-methods`],
    ['GET .../defaults/{contextName}', () => `/v1/customers/${customerId}/payment-methods/defaults/web`],
  ];

  function read(path: string, token: string, secret?: string) {
    const call = request(testApp.app).get(path).set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location);
    return secret === undefined ? call : call.set('Platform-Session-Secret', secret);
  }

  describe.each(reads)('%s', (_name, path) => {
    it('with only simplified-payments-integration:read: allowed with the own live secret, 401 otherwise', async () => {
      await read(path(), browserToken, secrets.own).expect(200);
      for (const kind of [undefined, 'otherCustomer', 'canceled', 'expired', 'malformed', 'forged']) {
        const response = await read(path(), browserToken, kind === undefined ? undefined : secrets[kind]);
        expect({ kind, status: response.status, code: response.body.code, messageKey: response.body.messageKey }).toEqual({
          kind,
          status: 401,
          code: 4004,
          messageKey: 'SESSION_SECRET_INVALID',
        });
      }
    });

    it('with spi.customers:read: the header is optional, but one that is sent must be valid', async () => {
      await read(path(), readerToken).expect(200);
      await read(path(), readerToken, secrets.own).expect(200);
      await read(path(), readerToken, secrets.otherCustomer).expect(401);
    });
  });

  it("GET /v1/payment-intents/{id} with simplified-payments-integration:read needs that intent's own secret", async () => {
    const path = `/v1/payment-intents/${intentId}`;
    const own = await read(path, browserToken, secrets.own).expect(200);
    expect(own.body.id).toBe(intentId);
    for (const kind of [undefined, 'otherCustomer', 'canceled', 'malformed']) {
      await read(path, browserToken, kind === undefined ? undefined : secrets[kind]).expect(401);
    }
  });

  it('answers CORS preflights for configured origins only', async () => {
    const preflight = (origin: string) =>
      request(testApp.app)
        .options(`/v1/customers/${customerId}/payment-methods`)
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'GET')
        .set('Access-Control-Request-Headers', 'authorization,platform-session-secret,platform-restaurant-external-id');
    const allowed = await preflight(TEST_CORS_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(TEST_CORS_ORIGIN);
    expect(allowed.headers['access-control-allow-headers']).toMatch(/Platform-Session-Secret/);
    const refused = await preflight('https://evil.example');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});
