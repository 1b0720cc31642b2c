import request from 'supertest';
import { SCOPE } from '../../../../src/auth/scopes';
import { AUTHENTICATION_REQUIRED, AUTHENTICATION_REQUIRED_LAST_FOUR } from '../../../../src/payment-processor/sandbox-cards';
import { confirm, intentEvents } from '../../../factories/checkout';
import { cardInput, createCustomer, saveCard } from '../../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../../factories/locations';
import { createMandate, revokeMandate } from '../../../factories/mandates';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * Merchant-initiated (off-session) charges through HTTP: the mandate they
 * must name, checked at create, update and confirm; the card a confirm
 * charges when it names none; the sandbox's card that wants the payor
 * present; and a card the payor removed while its mandate lives. Runs on
 * PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

async function payor(location: string, lastFour = '4242'): Promise<{ customerId: string; cardId: string }> {
  const customerId = (await createCustomer(testApp, location)).id;
  const base = cardInput() as { card: Record<string, unknown> };
  const card = await saveCard(testApp, location, customerId, { ...base, card: { ...base.card, lastFour } });
  return { customerId, cardId: card.id };
}

const createIntent = (location: string, body: Record<string, unknown>) =>
  request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({ amount: 1250, currency: 'USD', externalReferenceId: 'sub-gold', captureMethod: 'AUTOMATIC', ...body });

const updateIntent = (location: string, id: string, body: Record<string, unknown>) =>
  request(testApp.app).post(`/v1/payment-intents/${id}`).set(testApp.as(location)).send(body);

const intentRows = async (location: string) =>
  Number(((await testApp.db.knex('payment_intents').where({ location_id: location }).count('* as n')) as Array<{ n: string }>)[0]?.n);

describe('an off-session intent and its mandate', () => {
  it('must name a mandate (400 naming mandateId), one of its own customer (404), ACTIVE (409), within its maxAmount (409), and records nothing otherwise', async () => {
    const location = newLocation();
    const { customerId, cardId } = await payor(location);
    const other = await payor(location);
    const theirs = await createMandate(testApp, location, other.customerId, other.cardId);
    const limited = await createMandate(testApp, location, customerId, cardId, { maxAmount: 1000 });
    const revoked = await createMandate(testApp, location, customerId, cardId);
    await revokeMandate(testApp, location, customerId, revoked.id).expect(200);

    const missing = await createIntent(location, { customerId, offSession: true }).expect(400);
    expect(missing.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'mandateId' });
    const notTheirs = await createIntent(location, { customerId, offSession: true, mandateId: theirs.id }).expect(404);
    expect(notTheirs.body).toMatchObject({ messageKey: 'MANDATE_NOT_FOUND', fieldName: 'mandateId' });
    await createIntent(location, { offSession: true, mandateId: limited.id }).expect(404, /MANDATE_NOT_FOUND/);
    const inactive = await createIntent(location, { customerId, offSession: true, mandateId: revoked.id }).expect(409);
    expect(inactive.body).toMatchObject({ code: 3013, messageKey: 'MANDATE_INACTIVE', fieldName: 'mandateId' });
    const over = await createIntent(location, { customerId, offSession: true, mandateId: limited.id, amount: 1001 }).expect(409);
    expect(over.body).toMatchObject({ code: 3014, messageKey: 'MANDATE_AMOUNT_EXCEEDED', fieldName: 'amount' });
    expect(over.body.message).toContain('1000');
    expect(await intentRows(location)).toBe(0);

    const made = await createIntent(location, { customerId, offSession: true, mandateId: limited.id, amount: 1000 }).expect(201);
    expect(made.body).toMatchObject({ offSession: true, mandateId: limited.id, standingInstructionType: 'RECURRING', status: 'REQUIRES_PAYMENT_METHOD' });
    await updateIntent(location, made.body.id, { amount: 1001 }).expect(409, /MANDATE_AMOUNT_EXCEEDED/);
  });

  it('is refused at update and at confirm once its mandate is revoked, and nothing is charged', async () => {
    const location = newLocation();
    const { customerId, cardId } = await payor(location);
    const mandate = await createMandate(testApp, location, customerId, cardId);
    const intent = (await createIntent(location, { customerId, offSession: true, mandateId: mandate.id }).expect(201)).body;
    await revokeMandate(testApp, location, customerId, mandate.id).expect(200);
    await updateIntent(location, intent.id, { amount: 900 }).expect(409, /MANDATE_INACTIVE/);
    const refused = await confirm(testApp, location, intent.id).expect(409);
    expect(refused.body).toMatchObject({ messageKey: 'MANDATE_INACTIVE', fieldName: 'mandateId' });
    const read = await request(testApp.app).get(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).expect(200);
    expect(read.body).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', amount: 1250, latestPayment: null });
  });

  it("is confirmed by the server on the mandate's card when the confirm names none; the browser's confirm with the session secret is refused (403)", async () => {
    const location = newLocation();
    const { customerId, cardId } = await payor(location);
    await saveCard(testApp, location, customerId, cardInput({ card: { type: 'mastercard', lastFour: '4444', expiry: { month: '5', year: '2031' } } }));
    const mandate = await createMandate(testApp, location, customerId, cardId);
    const intent = (await createIntent(location, { customerId, offSession: true, mandateId: mandate.id }).expect(201)).body;

    const browser = await testApp.tokenFor({ scopes: [SCOPE.integrationRead], locations: [location] });
    const asBrowser = { Authorization: `Bearer ${browser}`, [LOCATION_HEADER]: location, 'Platform-Session-Secret': intent.sessionSecret };
    const refused = await request(testApp.app).post(`/v1/payment-intents/${intent.id}/confirm`).set(asBrowser).send({}).expect(403);
    expect(refused.body).toMatchObject({ messageKey: 'INSUFFICIENT_SCOPE' });

    const paid = await confirm(testApp, location, intent.id).expect(200);
    expect(paid.body).toMatchObject({ status: 'SUCCEEDED', paymentMethodId: cardId, amountCaptured: 1250, latestPayment: { card: { lastFour: '4242' } } });
    expect((await intentEvents(testApp, location, intent.id)).map((event) => event.type)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.succeeded',
    ]);
  });

  it("refuses an off-session confirm on another card than the mandate's (400 naming paymentMethodId)", async () => {
    const location = newLocation();
    const { customerId, cardId } = await payor(location);
    const another = await saveCard(
      testApp,
      location,
      customerId,
      cardInput({ card: { type: 'visa', lastFour: '1881', expiry: { month: '5', year: '2031' } } }),
    );
    const mandate = await createMandate(testApp, location, customerId, cardId);
    const intent = (await createIntent(location, { customerId, offSession: true, mandateId: mandate.id }).expect(201)).body;
    const refused = await confirm(testApp, location, intent.id, { paymentMethodId: another.id }).expect(400);
    expect(refused.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'paymentMethodId' });
  });
});

describe('the card a confirm charges when it names none', () => {
  it("is the customer's default for the intent's contextName, and 400 naming paymentMethodId when there is none", async () => {
    const location = newLocation();
    const { customerId } = await payor(location);
    const gold = await saveCard(testApp, location, customerId, cardInput({ card: { type: 'visa', lastFour: '1111', expiry: { month: '5', year: '2031' } } }));
    await request(testApp.app)
      .post(`/v1/customers/${customerId}/payment-methods/defaults`)
      .set(testApp.as(location))
      .send({ paymentMethodId: gold.id, contextName: 'gold-plan' })
      .expect(200);
    const byContext = (await createIntent(location, { customerId, contextName: 'gold-plan' }).expect(201)).body;
    expect(byContext.contextName).toBe('gold-plan');
    const paid = await confirm(testApp, location, byContext.id).expect(200);
    expect(paid.body).toMatchObject({ status: 'SUCCEEDED', paymentMethodId: gold.id });

    const noDefault = (await createIntent(location, { customerId, contextName: 'silver-plan' }).expect(201)).body;
    await confirm(testApp, location, noDefault.id).expect(400, /paymentMethodId/);
    const none = (await createIntent(location, { customerId }).expect(201)).body;
    const refused = await confirm(testApp, location, none.id).expect(400);
    expect(refused.body).toMatchObject({ fieldName: 'paymentMethodId' });
    // An update names the context later.
    await updateIntent(location, none.id, { contextName: 'gold-plan' }).expect(200);
    await confirm(testApp, location, none.id).expect(200);
  });
});

describe(`the sandbox card ${AUTHENTICATION_REQUIRED_LAST_FOUR}`, () => {
  it('is declined off-session (authentication_required) and approved on-session', async () => {
    const location = newLocation();
    const { customerId, cardId } = await payor(location, AUTHENTICATION_REQUIRED_LAST_FOUR);
    const mandate = await createMandate(testApp, location, customerId, cardId);
    const offSession = (await createIntent(location, { customerId, offSession: true, mandateId: mandate.id }).expect(201)).body;
    const declined = await confirm(testApp, location, offSession.id).expect(200);
    expect(declined.body).toMatchObject({
      status: 'REQUIRES_PAYMENT_METHOD',
      lastPaymentError: { code: AUTHENTICATION_REQUIRED.code, declineCode: 'authentication_required' },
    });
    const onSession = (await createIntent(location, { customerId }).expect(201)).body;
    const approved = await confirm(testApp, location, onSession.id, { paymentMethodId: cardId }).expect(200);
    expect(approved.body).toMatchObject({ status: 'SUCCEEDED', lastPaymentError: null });
  });
});

describe('a card the payor removes while a mandate lives (Toast)', () => {
  it('leaves the list, the defaults and on-session use, is still charged off-session under the mandate, and goes for good with its revocation', async () => {
    const location = newLocation();
    const { customerId, cardId } = await payor(location);
    await request(testApp.app)
      .post(`/v1/customers/${customerId}/payment-methods/defaults`)
      .set(testApp.as(location))
      .send({ paymentMethodId: cardId, contextName: 'gold-plan' })
      .expect(200);
    const mandate = await createMandate(testApp, location, customerId, cardId, { contextName: 'gold-plan' });
    await request(testApp.app).delete(`/v1/customers/${customerId}/payment-methods/${cardId}`).set(testApp.as(location)).expect(204);

    const cards = await request(testApp.app).get(`/v1/customers/${customerId}/payment-methods`).set(testApp.as(location)).expect(200);
    expect(cards.body).toEqual({ results: 0, paymentMethods: [] });
    await request(testApp.app).get(`/v1/customers/${customerId}/payment-methods/defaults/gold-plan`).set(testApp.as(location)).expect(404);
    const onSession = (await createIntent(location, { customerId }).expect(201)).body;
    await confirm(testApp, location, onSession.id, { paymentMethodId: cardId }).expect(404);

    const offSession = (await createIntent(location, { customerId, offSession: true, mandateId: mandate.id }).expect(201)).body;
    const paid = await confirm(testApp, location, offSession.id).expect(200);
    expect(paid.body).toMatchObject({ status: 'SUCCEEDED', paymentMethodId: cardId, latestPayment: { card: { lastFour: '4242' } } });

    await revokeMandate(testApp, location, customerId, mandate.id).expect(200);
    expect(await testApp.db.knex('mandates').where({ location_id: location, id: mandate.id }).first('card')).toEqual({ card: null });
    const after = (await createIntent(location, { customerId, offSession: false }).expect(201)).body;
    await confirm(testApp, location, after.id, { paymentMethodId: cardId }).expect(404);
  });
});
