import request from 'supertest';
import { OVERCAPTURE_FAILS_LAST_FOUR } from '../../../../src/payment-processor/sandbox-cards';
import { capture, checkoutWith, confirm, intentEvents } from '../../../factories/checkout';
import { newLocation } from '../../../factories/locations';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * The tip added at capture (Stripe's overcapture, as card networks allow
 * restaurants): `amountDetails.tip` replaces the intent's tip and the amount
 * with it is captured, at most OVERCAPTURE_MAX_PERCENT (20) above what was
 * authorized. Beyond it, or when the processor refuses, 409 and the intent
 * unchanged and still capturable.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const read = async (location: string, id: string) => (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200)).body;

/** An authorized intent of 1,000 of which 100 is the tip given at checkout. */
async function authorized(location: string, lastFour = '4242') {
  const { intent, cardId } = await checkoutWith(testApp, location, { lastFour, amount: 1000 });
  await request(testApp.app)
    .post(`/v1/payment-intents/${intent.id}`)
    .set(testApp.as(location))
    .send({ amountDetails: { tip: 100 } })
    .expect(200);
  await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200, /"status":"REQUIRES_CAPTURE"/);
  return intent.id;
}

it("captures the amount with the slip's tip in place of the one given at checkout, and the event carries both", async () => {
  const location = newLocation();
  const id = await authorized(location);
  const captured = await capture(testApp, location, id, { amountDetails: { tip: 250 } }).expect(200);
  expect(captured.body).toMatchObject({
    status: 'SUCCEEDED',
    amount: 1150,
    amountDetails: { tip: 250 },
    amountCaptured: 1150,
    refundableAmount: 1150,
    latestPayment: { status: 'CAPTURED', amount: 1150 },
  });
  const succeeded = (await intentEvents(testApp, location, id)).find(({ type }) => type === 'payment_intent.succeeded');
  expect(succeeded?.object).toMatchObject({ amount: 1150, amountDetails: { tip: 250 }, amountCaptured: 1150 });
  expect(succeeded?.previous).toMatchObject({ status: 'REQUIRES_CAPTURE', amount: 1000, amountDetails: { tip: 100 } });
});

it('captures up to 20 % above the authorized amount; one more is 409 naming the largest tip, the intent unchanged and capturable', async () => {
  const location = newLocation();
  const id = await authorized(location);
  const before = await read(location, id);
  // Authorized 1,000, of which 900 without the tip: at most 1,200, so a tip of at most 300.
  const over = await capture(testApp, location, id, { amountDetails: { tip: 301 } }).expect(409);
  expect(over.body).toMatchObject({ code: 3011, messageKey: 'OVERCAPTURE_LIMIT_EXCEEDED', fieldName: 'amountDetails.tip' });
  expect(over.body.message).toContain('At most 1200 may be captured');
  expect(over.body.message).toContain('the tip may be at most 300');
  expect(await read(location, id)).toEqual(before);
  await capture(testApp, location, id, { amountDetails: { tip: 300 } }).expect(200, /"amountCaptured":1200/);
});

it('takes a smaller tip too (less than was authorized), and refuses amountToCapture beside amountDetails', async () => {
  const location = newLocation();
  const id = await authorized(location);
  const both = await capture(testApp, location, id, { amountToCapture: 500, amountDetails: { tip: 0 } }).expect(400);
  expect(both.body.fieldName).toBe('amountToCapture');
  const lower = await capture(testApp, location, id, { amountDetails: { tip: 0 } }).expect(200);
  expect(lower.body).toMatchObject({ amount: 900, amountDetails: { tip: 0 }, amountCaptured: 900 });
});

it('keeps amountToCapture at most the authorized amount, without a tip', async () => {
  const location = newLocation();
  const id = await authorized(location);
  const over = await capture(testApp, location, id, { amountToCapture: 1001 }).expect(400);
  expect(over.body).toMatchObject({ fieldName: 'amountToCapture', message: 'Must not exceed the authorized amount, 1000.' });
  await capture(testApp, location, id, { amountToCapture: 1000 }).expect(200, /"amountCaptured":1000/);
});

it(`${OVERCAPTURE_FAILS_LAST_FOUR} refuses any overcapture: 409 OVERCAPTURE_DECLINED, the intent unchanged and capturable for the authorized amount`, async () => {
  const location = newLocation();
  const id = await authorized(location, OVERCAPTURE_FAILS_LAST_FOUR);
  const before = await read(location, id);
  const declined = await capture(testApp, location, id, { amountDetails: { tip: 150 } }).expect(409);
  expect(declined.body).toMatchObject({ code: 3012, messageKey: 'OVERCAPTURE_DECLINED' });
  expect(await read(location, id)).toEqual(before);
  // Within what was authorized, the same card captures.
  await capture(testApp, location, id, { amountDetails: { tip: 100 } }).expect(200, /"amountCaptured":1000/);
});
