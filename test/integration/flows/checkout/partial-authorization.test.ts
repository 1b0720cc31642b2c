import request from 'supertest';
import { PARTIAL_AUTHORIZATION_LAST_FOUR, PARTIAL_AUTHORIZATION_LIMIT } from '../../../../src/payment-processor/sandbox-cards';
import { capture, checkoutWith, confirm, intentEvents } from '../../../factories/checkout';
import { newLocation } from '../../../factories/locations';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * Partial authorization, as Toast has it: with
 * `paymentMethodOptions.card.partialAuthorization`, a card that cannot pay
 * the whole amount is approved for what it can, the intent's `amount`
 * becomes that, and `amountRequested` (this service's own field) keeps what
 * was asked, so the integrator makes a second intent for the rest. Without
 * it, the same card is declined for insufficient funds.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const PARTIAL = { paymentMethodOptions: { card: { partialAuthorization: true } } };

async function intentOn0044(location: string, options: { amount: number; captureMethod?: 'MANUAL' | 'AUTOMATIC'; extra?: object }) {
  const { intent, cardId } = await checkoutWith(testApp, location, {
    lastFour: PARTIAL_AUTHORIZATION_LAST_FOUR,
    amount: options.amount,
    captureMethod: options.captureMethod ?? 'MANUAL',
  });
  if (options.extra !== undefined) {
    await request(testApp.app).post(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).send(options.extra).expect(200);
  }
  return { id: intent.id, cardId };
}

it(`approves ${PARTIAL_AUTHORIZATION_LIMIT} of 4,000 when asked to, rewriting amount and keeping amountRequested; the capture takes that much`, async () => {
  const location = newLocation();
  const { id, cardId } = await intentOn0044(location, { amount: 4000, extra: PARTIAL });
  const confirmed = await confirm(testApp, location, id, { paymentMethodId: cardId }).expect(200);
  expect(confirmed.body).toMatchObject({
    status: 'REQUIRES_CAPTURE',
    amount: PARTIAL_AUTHORIZATION_LIMIT,
    amountRequested: 4000,
    paymentMethodOptions: { card: { partialAuthorization: true } },
    latestPayment: { status: 'AUTHORIZED', amount: PARTIAL_AUTHORIZATION_LIMIT },
  });
  const requiresCapture = (await intentEvents(testApp, location, id)).find(({ type }) => type === 'payment_intent.requires_capture');
  expect(requiresCapture?.previous).toMatchObject({ status: 'PROCESSING', amount: 4000, amountRequested: null });
  await capture(testApp, location, id).expect(200, new RegExp(`"amountCaptured":${PARTIAL_AUTHORIZATION_LIMIT}`));
});

it('declines the same card without partial authorization (insufficient_funds), changing no amount', async () => {
  const location = newLocation();
  const { id, cardId } = await intentOn0044(location, { amount: 4000 });
  const declined = await confirm(testApp, location, id, { paymentMethodId: cardId }).expect(200);
  expect(declined.body).toMatchObject({
    status: 'REQUIRES_PAYMENT_METHOD',
    amount: 4000,
    amountRequested: null,
    paymentMethodOptions: { card: { partialAuthorization: false } },
    lastPaymentError: { code: 'card_declined', declineCode: 'insufficient_funds' },
  });
});

it('takes the option on create too, captures at once with AUTOMATIC, and keeps the tip within the new amount', async () => {
  const location = newLocation();
  const { intent, cardId } = await checkoutWith(testApp, location, { lastFour: PARTIAL_AUTHORIZATION_LAST_FOUR, captureMethod: 'AUTOMATIC' });
  const created = await request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({
      amount: 4000,
      currency: 'USD',
      externalReferenceId: 'order-gift',
      customerId: intent.customerId,
      captureMethod: 'AUTOMATIC',
      amountDetails: { tip: 3000 },
      ...PARTIAL,
    })
    .expect(201);
  expect(created.body.paymentMethodOptions).toEqual({ card: { partialAuthorization: true } });
  const paid = await confirm(testApp, location, created.body.id, { paymentMethodId: cardId }).expect(200);
  expect(paid.body).toMatchObject({
    status: 'SUCCEEDED',
    amount: PARTIAL_AUTHORIZATION_LIMIT,
    amountRequested: 4000,
    amountDetails: { tip: PARTIAL_AUTHORIZATION_LIMIT },
    amountCaptured: PARTIAL_AUTHORIZATION_LIMIT,
    refundableAmount: PARTIAL_AUTHORIZATION_LIMIT,
  });
});

it('approves the whole amount when the card can pay it, with or without the option', async () => {
  const location = newLocation();
  const { id, cardId } = await intentOn0044(location, { amount: PARTIAL_AUTHORIZATION_LIMIT, extra: PARTIAL });
  const confirmed = await confirm(testApp, location, id, { paymentMethodId: cardId }).expect(200);
  expect(confirmed.body).toMatchObject({ status: 'REQUIRES_CAPTURE', amount: PARTIAL_AUTHORIZATION_LIMIT, amountRequested: null });
});

it('records a change of the option as an update, with the option as it was', async () => {
  const location = newLocation();
  const { id } = await intentOn0044(location, { amount: 4000, extra: PARTIAL });
  const updated = (await intentEvents(testApp, location, id)).find(({ type }) => type === 'payment_intent.updated');
  expect(updated?.previous).toEqual({ paymentMethodOptions: { card: { partialAuthorization: false } } });
});

describe('a tip added at capture on a partial authorization', () => {
  /** 3,000 asked (300 of it tip), 2,500 authorized: 500 of the bill is left for another card. */
  async function partlyAuthorized(location: string) {
    const { id, cardId } = await intentOn0044(location, { amount: 3000, extra: { ...PARTIAL, amountDetails: { tip: 300 } } });
    const confirmed = await confirm(testApp, location, id, { paymentMethodId: cardId }).expect(200);
    expect(confirmed.body).toMatchObject({ amount: PARTIAL_AUTHORIZATION_LIMIT, amountRequested: 3000, amountDetails: { tip: 300 } });
    return id;
  }

  it('is this card’s tip, on top of its part of the bill: amountRequested moves with it, so what is left to pay stays 500', async () => {
    const location = newLocation();
    const id = await partlyAuthorized(location);
    // The guest writes no tip on this card's slip.
    const captured = await capture(testApp, location, id, { amountDetails: { tip: 0 } }).expect(200);
    expect(captured.body).toMatchObject({ status: 'SUCCEEDED', amount: 2200, amountRequested: 2700, amountDetails: { tip: 0 }, amountCaptured: 2200 });
    expect(captured.body.amountRequested - captured.body.amount).toBe(500);
    const succeeded = (await intentEvents(testApp, location, id)).find(({ type }) => type === 'payment_intent.succeeded');
    expect(succeeded?.previous).toMatchObject({ amount: PARTIAL_AUTHORIZATION_LIMIT, amountRequested: 3000, amountDetails: { tip: 300 } });
  });

  it('above what the card authorized is refused by it (409 OVERCAPTURE_DECLINED), the intent unchanged and still capturable', async () => {
    const location = newLocation();
    const id = await partlyAuthorized(location);
    const refused = await capture(testApp, location, id, { amountDetails: { tip: 500 } }).expect(409);
    expect(refused.body).toMatchObject({ messageKey: 'OVERCAPTURE_DECLINED', fieldName: 'amountDetails.tip' });
    const read = await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200);
    expect(read.body).toMatchObject({ status: 'REQUIRES_CAPTURE', amount: PARTIAL_AUTHORIZATION_LIMIT, amountRequested: 3000, amountCaptured: 0 });
    const captured = await capture(testApp, location, id).expect(200);
    expect(captured.body).toMatchObject({ status: 'SUCCEEDED', amountCaptured: PARTIAL_AUTHORIZATION_LIMIT, amountRequested: 3000 });
  });
});
