import request from 'supertest';
import { SCOPE } from '../../../../src/auth/scopes';
import { cancel, capture, checkoutWith, confirm, intentEvents, sandboxOperations } from '../../../factories/checkout';
import { LOCATION_HEADER, newLocation } from '../../../factories/locations';
import { startTestApp, TEST_CORS_ORIGIN, type TestApp } from '../../../support/test-app';

/**
 * A checkout through HTTP with the sandbox processor's test cards: confirm,
 * capture, cancel (void), each move with its event, from the server side and
 * from the browser side with a session secret.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('confirm', () => {
  it('authorizes a MANUAL intent: REQUIRES_CAPTURE, with the payment and its card, after a PROCESSING event', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { amount: 1800 });
    const confirmed = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    expect(confirmed.body).toMatchObject({
      id: intent.id,
      status: 'REQUIRES_CAPTURE',
      paymentMethodId: cardId,
      lastPaymentError: null,
      cancellationReason: null,
      latestPayment: {
        id: expect.any(String),
        status: 'AUTHORIZED',
        amount: 1800,
        createdAt: expect.stringMatching(ISO),
        card: { brand: 'VISA', lastFour: '4242', expiry: { month: '03', year: expect.stringMatching(/^\d{4}$/) } },
      },
    });
    const read = await request(testApp.app).get(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).expect(200);
    expect(read.body).toEqual(confirmed.body);
    const events = await intentEvents(testApp, location, intent.id);
    expect(events.map(({ type, previous }) => [type, previous])).toEqual([
      ['payment_intent.created', null],
      ['payment_intent.processing', expect.objectContaining({ status: 'REQUIRES_PAYMENT_METHOD', latestPayment: null, paymentMethodId: null })],
      ['payment_intent.requires_capture', expect.objectContaining({ status: 'PROCESSING' })],
    ]);
    expect(events[1]?.object).toMatchObject({ status: 'PROCESSING', latestPayment: { status: 'PENDING' } });
    expect(JSON.stringify(events)).not.toContain(intent.sessionSecret);
  });

  it('captures an AUTOMATIC intent at once: SUCCEEDED, and its session secret dies', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { captureMethod: 'AUTOMATIC' });
    const confirmed = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    expect(confirmed.body).toMatchObject({ status: 'SUCCEEDED', latestPayment: { status: 'CAPTURED', amount: 1250 } });
    expect((await intentEvents(testApp, location, intent.id)).map(({ type }) => type)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.succeeded',
    ]);
    const browser = await testApp.tokenFor({ scopes: [SCOPE.integrationRead], locations: [location] });
    await request(testApp.app)
      .get(`/v1/payment-intents/${intent.id}`)
      .set({ Authorization: `Bearer ${browser}`, [LOCATION_HEADER]: location, 'Platform-Session-Secret': intent.sessionSecret })
      .expect(401);
  });

  it.each([
    ['0002', { code: 'card_declined', declineCode: 'generic_decline', message: 'The card was declined.' }],
    ['9995', { code: 'card_declined', declineCode: 'insufficient_funds', message: 'The card has insufficient funds.' }],
    ['0069', { code: 'expired_card', declineCode: null, message: 'The card has expired.' }],
    ['0119', { code: 'processing_error', declineCode: null, message: 'An error occurred while processing the card. Try again.' }],
  ])('declines the sandbox card ending %s: back to REQUIRES_PAYMENT_METHOD with lastPaymentError, answered 200', async (lastFour, error) => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { lastFour });
    const declined = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    expect(declined.body).toMatchObject({
      status: 'REQUIRES_PAYMENT_METHOD',
      lastPaymentError: error,
      paymentMethodId: null,
      latestPayment: { status: 'FAILED', card: { lastFour } },
    });
    const events = await intentEvents(testApp, location, intent.id);
    expect(events.at(-1)).toMatchObject({ type: 'payment_intent.payment_failed', previous: { status: 'PROCESSING', lastPaymentError: null } });
  });

  it('declines a saved card whose expiry has passed since as expired_card', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await testApp.db.knex('payment_methods').where({ location_id: location, id: cardId }).update({ exp_month: '01', exp_year: '2020' });
    const declined = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    expect(declined.body).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', lastPaymentError: { code: 'expired_card' } });
  });

  it('after a decline, a confirm with another card is a new attempt, approved, and clears lastPaymentError', async () => {
    const location = newLocation();
    const { intent, customerId, cardId } = await checkoutWith(testApp, location, { lastFour: '0119' });
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200, /processing_error/);
    const good = await request(testApp.app)
      .post(`/v1/customers/${customerId}/payment-methods`)
      .set(testApp.as(location))
      .send({ type: 'CARD', card: { type: 'mastercard', lastFour: '4444', expiry: { month: '12', year: String(new Date().getUTCFullYear() + 3) } } })
      .expect(201);
    const approved = await confirm(testApp, location, intent.id, { paymentMethodId: good.body.id }).expect(200);
    expect(approved.body).toMatchObject({
      status: 'REQUIRES_CAPTURE',
      lastPaymentError: null,
      paymentMethodId: good.body.id,
      latestPayment: { card: { lastFour: '4444' } },
    });
    expect((await sandboxOperations(testApp, location, intent.id)).map(({ idempotency_key }) => idempotency_key)).toEqual([`${intent.id}:1`, `${intent.id}:2`]);
  });

  it("answers 404 naming paymentMethodId for a card not of the intent's customer, or an intent without one, changing nothing", async () => {
    const location = newLocation();
    const { intent } = await checkoutWith(testApp, location);
    const other = await checkoutWith(testApp, location);
    const refused = await confirm(testApp, location, intent.id, { paymentMethodId: other.cardId }).expect(404);
    expect(refused.body).toMatchObject({ code: 2002, messageKey: 'PAYMENT_METHOD_NOT_FOUND', fieldName: 'paymentMethodId' });
    const anonymous = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(location))
      .send({ amount: 500, currency: 'USD', externalReferenceId: 'walk-in' })
      .expect(201);
    await confirm(testApp, location, anonymous.body.id, { paymentMethodId: other.cardId }).expect(404);
    const after = await request(testApp.app).get(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).expect(200);
    expect(after.body).toEqual(intent);
    expect(await sandboxOperations(testApp, location, intent.id)).toEqual([]);
  });

  it('answers 400 naming paymentMethodId when none is sent and none is attached, and 404 for an intent of another location', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    const missing = await confirm(testApp, location, intent.id).expect(400);
    expect(missing.body).toMatchObject({ code: 1000, fieldName: 'paymentMethodId' });
    await confirm(testApp, newLocation(), intent.id, { paymentMethodId: cardId }).expect(404);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId, amount: 1 }).expect(400);
  });

  it("from the browser side: the read scope with the intent's own live secret confirms; another intent's secret, or none, is 401", async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    const other = await checkoutWith(testApp, location);
    const browser = await testApp.tokenFor({ scopes: [SCOPE.integrationRead], locations: [location] });
    const asBrowser = (secret?: string) => ({
      Authorization: `Bearer ${browser}`,
      [LOCATION_HEADER]: location,
      ...(secret === undefined ? {} : { 'Platform-Session-Secret': secret }),
    });
    const path = `/v1/payment-intents/${intent.id}/confirm`;
    await request(testApp.app).post(path).set(asBrowser()).send({ paymentMethodId: cardId }).expect(401);
    await request(testApp.app).post(path).set(asBrowser(other.intent.sessionSecret)).send({ paymentMethodId: cardId }).expect(401);
    const confirmed = await request(testApp.app).post(path).set(asBrowser(intent.sessionSecret)).send({ paymentMethodId: cardId }).expect(200);
    expect(confirmed.body.status).toBe('REQUIRES_CAPTURE');
    // The server side captures; the browser's scope cannot.
    await request(testApp.app).post(`/v1/payment-intents/${intent.id}/capture`).set(asBrowser(intent.sessionSecret)).expect(403);
  });

  it('answers CORS preflights for the confirm from configured origins, POST with a JSON body allowed', async () => {
    const preflight = await request(testApp.app)
      .options('/v1/payment-intents/019ab3c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f/confirm')
      .set({ Origin: TEST_CORS_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,platform-session-secret' })
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(TEST_CORS_ORIGIN);
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Content-Type/);
    const foreign = await request(testApp.app)
      .options('/v1/payment-intents/019ab3c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f/confirm')
      .set({ Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('capture', () => {
  it('captures the whole authorization by default: SUCCEEDED, one succeeded event', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { amount: 2000 });
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const captured = await capture(testApp, location, intent.id).expect(200);
    expect(captured.body).toMatchObject({ status: 'SUCCEEDED', amount: 2000, latestPayment: { status: 'CAPTURED', amount: 2000 } });
    const events = await intentEvents(testApp, location, intent.id);
    expect(events.at(-1)).toMatchObject({ type: 'payment_intent.succeeded', previous: { status: 'REQUIRES_CAPTURE' } });
    expect((await sandboxOperations(testApp, location, intent.id)).map(({ operation, state }) => [operation, state])).toEqual([
      ['authorize', 'captured'],
      ['capture', null],
    ]);
  });

  it('captures part of it: latestPayment.amount is what was taken; more than authorized is a 400 naming amountToCapture', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { amount: 2000 });
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const over = await capture(testApp, location, intent.id, { amountToCapture: 2001 }).expect(400);
    expect(over.body).toMatchObject({ code: 1000, fieldName: 'amountToCapture', message: expect.stringContaining('2000') });
    const captured = await capture(testApp, location, intent.id, { amountToCapture: 1500 }).expect(200);
    expect(captured.body).toMatchObject({ status: 'SUCCEEDED', amount: 2000, latestPayment: { status: 'CAPTURED', amount: 1500 } });
  });

  it('the sandbox card ending 0259 is authorized, then its capture fails: still REQUIRES_CAPTURE with lastPaymentError', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { lastFour: '0259' });
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200, /REQUIRES_CAPTURE/);
    const failed = await capture(testApp, location, intent.id).expect(200);
    expect(failed.body).toMatchObject({
      status: 'REQUIRES_CAPTURE',
      lastPaymentError: { code: 'capture_failed', declineCode: null },
      latestPayment: { status: 'AUTHORIZED' },
    });
    expect((await intentEvents(testApp, location, intent.id)).at(-1)).toMatchObject({
      type: 'payment_intent.payment_failed',
      previous: { lastPaymentError: null },
    });
    // It can still be canceled, which voids it.
    await cancel(testApp, location, intent.id).expect(200, /CANCELED/);
  });

  it('an AUTOMATIC intent with the card ending 0259 fails as a whole: REQUIRES_PAYMENT_METHOD, capture_failed', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { lastFour: '0259', captureMethod: 'AUTOMATIC' });
    const failed = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    expect(failed.body).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', lastPaymentError: { code: 'capture_failed' } });
  });
});

describe('cancel', () => {
  it('voids an authorization at the processor first, with the reason given; a later capture is a 409 naming CANCELED', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const canceled = await cancel(testApp, location, intent.id, { cancellationReason: 'REQUESTED_BY_CUSTOMER' }).expect(200);
    expect(canceled.body).toMatchObject({ status: 'CANCELED', cancellationReason: 'REQUESTED_BY_CUSTOMER', latestPayment: { status: 'VOIDED' } });
    expect((await sandboxOperations(testApp, location, intent.id)).map(({ operation, state }) => [operation, state])).toEqual([
      ['authorize', 'voided'],
      ['void', null],
    ]);
    const refused = await capture(testApp, location, intent.id).expect(409);
    expect(refused.body).toMatchObject({ code: 3002, message: 'The payment intent is CANCELED and cannot be captured.' });
    expect((await intentEvents(testApp, location, intent.id)).at(-1)).toMatchObject({
      type: 'payment_intent.canceled',
      previous: { status: 'REQUIRES_CAPTURE', cancellationReason: null },
    });
  });

  it('refuses a reason the service keeps for itself (AUTOMATIC), and unknown fields', async () => {
    const location = newLocation();
    const { intent } = await checkoutWith(testApp, location);
    const refused = await cancel(testApp, location, intent.id, { cancellationReason: 'AUTOMATIC' }).expect(400);
    expect(refused.body).toMatchObject({ fieldName: 'cancellationReason' });
    await cancel(testApp, location, intent.id, { reason: 'x' }).expect(400);
    await cancel(testApp, location, intent.id).expect(200, /"cancellationReason":null/);
  });
});
