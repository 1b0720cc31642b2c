import request from 'supertest';
import { checkoutWith, confirm, intentEvents } from '../../factories/checkout';
import { createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/** POST /v1/payment-intents/{id} (Toast's update) and GET /v1/payment-intents. */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const update = (location: string, id: string, body: object) => request(testApp.app).post(`/v1/payment-intents/${id}`).set(testApp.as(location)).send(body);
const list = (location: string, query: Record<string, string | number> = {}) =>
  request(testApp.app).get('/v1/payment-intents').query(query).set(testApp.as(location));

describe('POST /v1/payment-intents/{id}', () => {
  it('changes the fields sent, clears those sent as null, and records the old values once', async () => {
    const location = newLocation();
    const { intent } = await checkoutWith(testApp, location);
    await update(location, intent.id, { email: 'ada@example.com' }).expect(200);
    const changed = await update(location, intent.id, { amount: 1400, amountDetails: { tip: 300 }, email: null, externalReferenceId: 'order-8' }).expect(200);
    expect(changed.body).toMatchObject({
      amount: 1400,
      amountDetails: { tip: 300 },
      email: null,
      externalReferenceId: 'order-8',
      status: 'REQUIRES_PAYMENT_METHOD',
    });
    expect(changed.body.sessionSecret).toBe(intent.sessionSecret);
    const events = await intentEvents(testApp, location, intent.id);
    expect(events.slice(1).map(({ type, previous }) => [type, previous])).toEqual([
      ['payment_intent.updated', { email: null }],
      ['payment_intent.updated', { amount: 1250, amountDetails: { tip: 0 }, email: 'ada@example.com', externalReferenceId: intent.externalReferenceId }],
    ]);
    // A change to nothing records nothing.
    await update(location, intent.id, { amount: 1400 }).expect(200);
    expect(await intentEvents(testApp, location, intent.id)).toHaveLength(3);
  });

  it('attaching a card moves it to REQUIRES_CONFIRMATION, and a confirm without a card uses it; null detaches it', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    const attached = await update(location, intent.id, { paymentMethodId: cardId }).expect(200);
    expect(attached.body).toMatchObject({ status: 'REQUIRES_CONFIRMATION', paymentMethodId: cardId });
    const detached = await update(location, intent.id, { paymentMethodId: null }).expect(200);
    expect(detached.body).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', paymentMethodId: null });
    await update(location, intent.id, { paymentMethodId: cardId }).expect(200);
    const confirmed = await confirm(testApp, location, intent.id).expect(200);
    expect(confirmed.body).toMatchObject({ status: 'REQUIRES_CAPTURE', paymentMethodId: cardId });
  });

  it('another customer detaches the card of the last one, unless the same update attaches one of theirs', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    const other = (await createCustomer(testApp, location)).id;
    const otherCard = (await saveCard(testApp, location, other)).id;
    await update(location, intent.id, { paymentMethodId: cardId }).expect(200);
    const moved = await update(location, intent.id, { customerId: other }).expect(200);
    expect(moved.body).toMatchObject({ customerId: other, paymentMethodId: null, status: 'REQUIRES_PAYMENT_METHOD' });
    const both = await update(location, intent.id, { customerId: null }).expect(200);
    expect(both.body.customerId).toBeNull();
    const again = await update(location, intent.id, { customerId: other, paymentMethodId: otherCard }).expect(200);
    expect(again.body).toMatchObject({ customerId: other, paymentMethodId: otherCard, status: 'REQUIRES_CONFIRMATION' });
  });

  it('refuses, changing nothing: an unknown customer (404), a card not of the customer (404), a tip over the amount (400), unknown fields (400)', async () => {
    const location = newLocation();
    const { intent } = await checkoutWith(testApp, location);
    const other = await checkoutWith(testApp, location);
    const customer = await update(location, intent.id, { customerId: '019ab3c4-0000-7000-8000-000000000001' }).expect(404);
    expect(customer.body).toMatchObject({ code: 2001, fieldName: 'customerId' });
    const card = await update(location, intent.id, { paymentMethodId: other.cardId }).expect(404);
    expect(card.body).toMatchObject({ code: 2002, fieldName: 'paymentMethodId' });
    const tip = await update(location, intent.id, { amountDetails: { tip: 1251 } }).expect(400);
    expect(tip.body).toMatchObject({ code: 1000, fieldName: 'amountDetails.tip' });
    await update(location, intent.id, { amount: 100, amountDetails: { tip: 101 } }).expect(400, /amountDetails\.tip/);
    await update(location, intent.id, { currency: 'CAD' }).expect(400);
    await update(location, intent.id, { amount: 0 }).expect(400, /"fieldName":"amount"/);
    const after = await request(testApp.app).get(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).expect(200);
    expect(after.body).toEqual(intent);
    expect(await intentEvents(testApp, location, intent.id)).toHaveLength(1);
  });

  it('a create with a tip over the amount is refused too', async () => {
    const refused = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(newLocation()))
      .send({ amount: 100, currency: 'USD', externalReferenceId: 'order-tip', amountDetails: { tip: 101 } })
      .expect(400);
    expect(refused.body).toMatchObject({ fieldName: 'amountDetails.tip', message: expect.stringContaining('Must not exceed amount') });
  });
});

describe('GET /v1/payment-intents', () => {
  it('pages newest first without skipping or repeating, and filters by customer, status and reference', async () => {
    const location = newLocation();
    const made = [];
    for (let index = 0; index < 5; index += 1) made.push(await checkoutWith(testApp, location));
    await confirm(testApp, location, made[1]!.intent.id, { paymentMethodId: made[1]!.cardId }).expect(200);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await list(location, { limit: 2, ...(cursor ? { startingAfter: cursor } : {}) }).expect(200);
      expect(page.body.results).toBe(page.body.paymentIntents.length);
      seen.push(...page.body.paymentIntents.map(({ id }: { id: string }) => id));
      if (!page.body.hasMore) break;
      cursor = seen.at(-1);
    }
    expect(seen).toEqual(made.map(({ intent }) => intent.id).reverse());

    const ofCustomer = await list(location, { customerId: made[3]!.customerId }).expect(200);
    expect(ofCustomer.body.paymentIntents.map(({ id }: { id: string }) => id)).toEqual([made[3]!.intent.id]);
    const authorized = await list(location, { status: 'REQUIRES_CAPTURE' }).expect(200);
    expect(authorized.body).toMatchObject({ results: 1, hasMore: false, paymentIntents: [{ id: made[1]!.intent.id, status: 'REQUIRES_CAPTURE' }] });
    const byReference = await list(location, { externalReferenceId: made[4]!.intent.externalReferenceId }).expect(200);
    expect(byReference.body.paymentIntents.map(({ id }: { id: string }) => id)).toEqual([made[4]!.intent.id]);
    const none = await list(location, { createdAfter: '2999-01-01T00:00:00Z' }).expect(200);
    expect(none.body).toEqual({ results: 0, paymentIntents: [], hasMore: false });
  });

  it('refuses a cursor that is not an intent of this location, a bad status and a bad limit, with 400 naming the field', async () => {
    const location = newLocation();
    const foreign = await checkoutWith(testApp, newLocation());
    await list(location, { startingAfter: foreign.intent.id }).expect(400, /"fieldName":"startingAfter"/);
    await list(location, { status: 'PAID' }).expect(400, /"fieldName":"status"/);
    await list(location, { limit: 101 }).expect(400, /"fieldName":"limit"/);
  });

  it("shows only the location's own intents", async () => {
    const location = newLocation();
    await checkoutWith(testApp, newLocation());
    const mine = await checkoutWith(testApp, location);
    const page = await list(location).expect(200);
    expect(page.body.paymentIntents.map(({ id }: { id: string }) => id)).toEqual([mine.intent.id]);
  });
});
