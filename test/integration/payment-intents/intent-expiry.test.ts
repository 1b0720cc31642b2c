import request from 'supertest';
import { SCOPE } from '../../../src/auth/scopes';
import { checkoutWith, confirm, intentEvents } from '../../factories/checkout';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Intents that expire (Toast: "The payment intent expires after 24 hours"):
 * an unpaid intent INTENT_EXPIRY_HOURS after its creation is CANCELED with
 * cancellationReason EXPIRED by the sweep every replica runs. The intents
 * are made older by moving their creation back (the sandbox clock, which
 * would do it through the API, is not built yet). Runs on PGlite and, with
 * DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

/** As if the intent had been made `hours` ago. */
const madeHoursAgo = (id: string, hours: number) =>
  testApp.db
    .knex('payment_intents')
    .where({ id })
    .update({ created_at: testApp.db.knex.raw(`now() - make_interval(hours => ?)`, [hours]) });

const read = async (location: string, id: string) => (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200)).body;

describe('an unpaid intent past INTENT_EXPIRY_HOURS (24)', () => {
  it('is CANCELED with cancellationReason EXPIRED and one payment_intent.canceled; its secret dies; an update or a confirm is 409 naming CANCELED', async () => {
    const location = newLocation();
    const { intent, cardId, customerId } = await checkoutWith(testApp, location);
    const attached = await checkoutWith(testApp, location);
    await request(testApp.app)
      .post(`/v1/payment-intents/${attached.intent.id}`)
      .set(testApp.as(location))
      .send({ paymentMethodId: attached.cardId })
      .expect(200);
    await madeHoursAgo(intent.id, 24);
    await madeHoursAgo(attached.intent.id, 25);

    // Several replicas sweeping at once expire each intent once.
    const counts = await Promise.all([testApp.paymentIntents.expireDue(testApp.db.knex), testApp.paymentIntents.expireDue(testApp.db.knex)]);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(2);
    for (const id of [intent.id, attached.intent.id]) {
      expect(await read(location, id)).toMatchObject({ status: 'CANCELED', cancellationReason: 'EXPIRED' });
      const canceled = (await intentEvents(testApp, location, id)).filter((event) => event.type === 'payment_intent.canceled');
      expect(canceled).toHaveLength(1);
      expect(canceled[0]?.object).toMatchObject({ status: 'CANCELED', cancellationReason: 'EXPIRED' });
    }
    expect((await intentEvents(testApp, location, attached.intent.id)).at(-1)?.previous).toEqual({ status: 'REQUIRES_CONFIRMATION', cancellationReason: null });

    const browser = await testApp.tokenFor({ scopes: [SCOPE.integrationRead], locations: [location] });
    await request(testApp.app)
      .get(`/v1/customers/${customerId}/payment-methods`)
      .set({ Authorization: `Bearer ${browser}`, [LOCATION_HEADER]: location, 'Platform-Session-Secret': intent.sessionSecret })
      .expect(401);
    const update = await request(testApp.app).post(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).send({ amount: 900 }).expect(409);
    expect(update.body).toMatchObject({ messageKey: 'PAYMENT_INTENT_STATUS_CONFLICT' });
    expect(update.body.message).toContain('CANCELED');
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(409, /CANCELED/);
  });

  it('leaves a younger unpaid intent, and a paid or authorized one of any age, as they are', async () => {
    const location = newLocation();
    const young = await checkoutWith(testApp, location);
    await madeHoursAgo(young.intent.id, 23);
    const authorized = await checkoutWith(testApp, location);
    await confirm(testApp, location, authorized.intent.id, { paymentMethodId: authorized.cardId }).expect(200, /REQUIRES_CAPTURE/);
    await madeHoursAgo(authorized.intent.id, 48);
    await testApp.paymentIntents.expireDue(testApp.db.knex);
    expect(await read(location, young.intent.id)).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', cancellationReason: null });
    expect(await read(location, authorized.intent.id)).toMatchObject({ status: 'REQUIRES_CAPTURE' });
    // EXPIRED is the service's own reason: a caller cannot give it.
    const refused = await request(testApp.app)
      .post(`/v1/payment-intents/${young.intent.id}/cancel`)
      .set(testApp.as(location))
      .send({ cancellationReason: 'EXPIRED' })
      .expect(400);
    expect(refused.body).toMatchObject({ fieldName: 'cancellationReason' });
  });
});
