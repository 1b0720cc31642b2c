import request from 'supertest';
import { SCOPE } from '../../../../src/auth/scopes';
import { sandboxRefundSettlesAfterMs } from '../../../../src/refunds/refund-sweeps';
import { REFUND_LATER_LAST_FOUR } from '../../../../src/payment-processor/sandbox-cards';
import { SandboxProcessor } from '../../../../src/payment-processor/sandbox-processor';
import { checkoutWith, confirm, intentEvents, paidIntent, refund } from '../../../factories/checkout';
import { createCustomer } from '../../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../../factories/locations';
import { createMandate } from '../../../factories/mandates';
import { GatedProcessor } from '../../../support/gated-processor';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * The sandbox clock through HTTP: each location's own, advanced forward
 * only, and every time window read from it (intents' expiry, the capture
 * window, the refund window, late refunds, session secrets, new records'
 * timestamps), with a subscription charged each month for a year. Runs on
 * PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({
    processor: (db) => new SandboxProcessor(db.knex, { latencyMs: 0, refundSettlesAfterMs: sandboxRefundSettlesAfterMs(5) }),
  });
});
afterAll(() => testApp.close());

const DAY = 86_400;

const readClock = async (location: string) => (await request(testApp.app).get('/v1/sandbox/clock').set(testApp.as(location)).expect(200)).body;
const advance = (location: string, seconds: unknown) => request(testApp.app).post('/v1/sandbox/clock/advance').set(testApp.as(location)).send({ seconds });
const readIntent = async (location: string, id: string) =>
  (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200)).body;

describe('a location’s sandbox clock', () => {
  it('reads real time until advanced, moves forward only by 1 to 31,536,000 seconds, and leaves other locations on real time', async () => {
    const location = newLocation();
    const other = newLocation();
    const before = Date.now();
    const fresh = await readClock(location);
    expect(fresh.offsetSeconds).toBe(0);
    expect(Date.parse(fresh.now)).toBeGreaterThanOrEqual(before);

    for (const seconds of [0, -5, 31_536_001, 1.5, '60', null]) {
      const refused = await advance(location, seconds).expect(400);
      expect(refused.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'seconds' });
    }
    const moved = await advance(location, DAY).expect(200);
    expect(moved.body.offsetSeconds).toBe(DAY);
    expect(Date.parse(moved.body.now)).toBeGreaterThanOrEqual(before + DAY * 1000);
    await advance(location, 31_536_000).expect(200);
    expect((await readClock(location)).offsetSeconds).toBe(DAY + 31_536_000);
    expect((await readClock(other)).offsetSeconds).toBe(0);
    expect(Date.parse((await readClock(other)).now)).toBeLessThan(before + 3_600_000);
  });

  it('goes at most a century ahead, all advances together (400 naming seconds past it, the clock unchanged)', async () => {
    const location = newLocation();
    for (let year = 0; year < 100; year += 1) await advance(location, 31_536_000).expect(200);
    const refused = await advance(location, 1).expect(400);
    expect(refused.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'seconds' });
    expect((await readClock(location)).offsetSeconds).toBe(3_153_600_000);
  });

  it('adds up concurrent advances', async () => {
    const location = newLocation();
    await Promise.all(Array.from({ length: 5 }, () => advance(location, 60).expect(200)));
    expect((await readClock(location)).offsetSeconds).toBe(300);
  });

  it("stamps new records with the location's time, and reads the same time in every later comparison", async () => {
    const location = newLocation();
    await advance(location, 30 * DAY).expect(200);
    const reading = Date.parse((await readClock(location)).now);
    const customer = await createCustomer(testApp, location);
    const { intent } = await checkoutWith(testApp, location);
    for (const stamp of [intent.creationDate]) expect(Date.parse(stamp)).toBeGreaterThanOrEqual(reading);
    const events = await request(testApp.app).get(`/v1/customers/${customer.id}/events`).set(testApp.as(location)).expect(200);
    expect(Date.parse(events.body.events[0].createdAt)).toBeGreaterThanOrEqual(reading);
    // Another location's new records keep real time.
    const elsewhere = await checkoutWith(testApp, newLocation());
    expect(Date.parse(elsewhere.intent.creationDate)).toBeLessThan(reading - 29 * DAY * 1000);
  });
});

describe('every time window, tested by advancing the clock', () => {
  it('expires an unpaid intent 24 hours after its creation, as the advance answers', async () => {
    const location = newLocation();
    const { intent } = await checkoutWith(testApp, location);
    await advance(location, DAY - 60).expect(200);
    expect(await readIntent(location, intent.id)).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD' });
    await advance(location, 61).expect(200);
    expect(await readIntent(location, intent.id)).toMatchObject({ status: 'CANCELED', cancellationReason: 'EXPIRED' });
  });

  it("voids an authorization at the end of its capture window, and kills the intent's session secret after its lifetime", async () => {
    const location = newLocation();
    const authorized = await checkoutWith(testApp, location);
    await confirm(testApp, location, authorized.intent.id, { paymentMethodId: authorized.cardId }).expect(200, /REQUIRES_CAPTURE/);
    const unpaid = await checkoutWith(testApp, location);
    const browser = await testApp.tokenFor({ scopes: [SCOPE.integrationRead], locations: [location] });
    const asBrowser = { Authorization: `Bearer ${browser}`, [LOCATION_HEADER]: location, 'Platform-Session-Secret': unpaid.intent.sessionSecret };
    await request(testApp.app).get(`/v1/customers/${unpaid.customerId}/payment-methods`).set(asBrowser).expect(200);

    await advance(location, 301).expect(200);
    expect(await readIntent(location, authorized.intent.id)).toMatchObject({ status: 'CANCELED', cancellationReason: 'AUTOMATIC' });
    // SESSION_SECRET_TTL_SECONDS is a day by default, as the intent's expiry.
    await advance(location, DAY).expect(200);
    await request(testApp.app).get(`/v1/customers/${unpaid.customerId}/payment-methods`).set(asBrowser).expect(401);
  });

  it('closes the refund window 90 days after the capture, and settles a late refund when its time comes', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location);
    const late = await paidIntent(testApp, location, { lastFour: REFUND_LATER_LAST_FOUR });
    const pending = await refund(testApp, location, late.intent.id, { amount: 100 }).expect(201);
    expect(pending.body.status).toBe('PENDING');
    await advance(location, 10).expect(200);
    const settled = await request(testApp.app).get(`/v1/refunds/${pending.body.id}`).set(testApp.as(location)).expect(200);
    expect(settled.body.status).toBe('SUCCEEDED');

    await advance(location, 89 * DAY).expect(200);
    await refund(testApp, location, intent.id, { amount: 100 }).expect(201);
    await advance(location, DAY).expect(200);
    await refund(testApp, location, intent.id, { amount: 100 }).expect(409, /REFUND_WINDOW_CLOSED/);
    // Another location's payment, captured now, is still refundable.
    const elsewhere = newLocation();
    const fresh = await paidIntent(testApp, elsewhere);
    await refund(testApp, elsewhere, fresh.intent.id, { amount: 100 }).expect(201);
  });
});

describe('the retentions the clock moves (docs/cards-on-file.md)', () => {
  it('forgets an Idempotency-Key once the clock passes its 24 hours: the same key with another body is a new create, not a 422', async () => {
    const location = newLocation();
    const create = (description: string) =>
      request(testApp.app)
        .post('/v1/customers')
        .set({ ...testApp.as(location), 'Idempotency-Key': 'profile-save-1' })
        .send({ description });
    const first = await create('ada@example.com').expect(200);
    await create('grace@example.com').expect(422);
    await advance(location, DAY + 60).expect(200);
    const second = await create('grace@example.com').expect(200);
    expect(second.body.id).not.toBe(first.body.id);
    // The events kept on real time: advancing deletes none.
    const history = await request(testApp.app).get(`/v1/customers/${first.body.id}/events`).set(testApp.as(location)).expect(200);
    expect(history.body.events.map((event: { type: string }) => event.type)).toEqual(['customer.created']);
  });
});

describe('without the sandbox processor', () => {
  it('has no clock: 404, and requests run on real time', async () => {
    const real = await startTestApp({ processor: (db) => new GatedProcessor(new SandboxProcessor(db.knex, { latencyMs: 0 })) });
    try {
      const location = newLocation();
      const missing = await request(real.app).get('/v1/sandbox/clock').set(real.as(location)).expect(404);
      expect(missing.body).toMatchObject({ messageKey: 'ROUTE_NOT_FOUND' });
      await request(real.app).post('/v1/sandbox/clock/advance').set(real.as(location)).send({ seconds: 60 }).expect(404);
      expect(await real.db.knex('sandbox_clocks').where({ location_id: location }).first()).toBeUndefined();
      const { intent } = await checkoutWith(real, location);
      expect(Math.abs(Date.parse(intent.creationDate) - Date.now())).toBeLessThan(60_000);
    } finally {
      await real.close();
    }
  });
});

describe('a subscription on the sandbox clock', () => {
  it("charges the context's card each month for a year: twelve off-session intents under one mandate, each approved with its events", async () => {
    const location = newLocation();
    const { customerId, cardId } = await checkoutWith(testApp, location);
    await request(testApp.app)
      .post(`/v1/customers/${customerId}/payment-methods/defaults`)
      .set(testApp.as(location))
      .send({ paymentMethodId: cardId, contextName: 'gold-plan' })
      .expect(200);
    const mandate = await createMandate(testApp, location, customerId, cardId, { contextName: 'gold-plan', maxAmount: 2000 });
    const created: number[] = [];
    for (let month = 1; month <= 12; month += 1) {
      const intent = await request(testApp.app)
        .post('/v1/payment-intents')
        .set(testApp.as(location))
        .send({
          amount: 1999,
          currency: 'USD',
          externalReferenceId: `gold-${month}`,
          customerId,
          captureMethod: 'AUTOMATIC',
          offSession: true,
          mandateId: mandate.id,
          contextName: 'gold-plan',
        })
        .expect(201);
      const paid = await confirm(testApp, location, intent.body.id).expect(200);
      expect(paid.body).toMatchObject({ status: 'SUCCEEDED', paymentMethodId: cardId, amountCaptured: 1999, standingInstructionType: 'RECURRING' });
      expect((await intentEvents(testApp, location, intent.body.id)).map((event) => event.type)).toEqual([
        'payment_intent.created',
        'payment_intent.processing',
        'payment_intent.succeeded',
      ]);
      created.push(Date.parse(intent.body.creationDate));
      await advance(location, 30 * DAY).expect(200);
    }
    // A month apart on the location's clock, though the test took seconds.
    for (let month = 1; month < 12; month += 1) expect((created[month] as number) - (created[month - 1] as number)).toBeGreaterThanOrEqual(30 * DAY * 1000);
    const list = await request(testApp.app)
      .get(`/v1/payment-intents?customerId=${customerId}&status=SUCCEEDED&limit=100`)
      .set(testApp.as(location))
      .expect(200);
    expect(list.body.results).toBe(12);
  });
});
