import request from 'supertest';
import { SETUP_INTENT_EXPIRY_MINUTES } from '../../../src/setup-intents/setup-intent-status';
import type { SetupIntent } from '../../../src/setup-intents/setup-intents.schemas';
import { SandboxProcessor } from '../../../src/payment-processor/sandbox-processor';
import { intentEvents } from '../../factories/checkout';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { consentInput } from '../../factories/mandates';
import { browserHeaders, confirmSetup, createSetupIntent, postSetupIntent } from '../../factories/setup-intents';
import { GatedProcessor } from '../../support/gated-processor';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Issue 57: a card saved without a payment. A setup intent's confirm
 * verifies the card for $0 and, in one transaction, saves it and (for
 * OFF_SESSION usage) makes its mandate from the consent recorded at
 * creation. Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let gated: GatedProcessor;
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({
    processor: (db) => {
      gated = new GatedProcessor(new SandboxProcessor(db.knex, { latencyMs: 0 }));
      return gated;
    },
  });
});
afterAll(() => testApp.close());

const as = (location: string) => testApp.as(location);
const getSetup = async (location: string, id: string) =>
  (await request(testApp.app).get(`/v1/setup-intents/${id}`).set(as(location)).expect(200)).body as SetupIntent;
const cardsOf = async (location: string, customerId: string) =>
  (await request(testApp.app).get(`/v1/customers/${customerId}/payment-methods`).set(as(location)).expect(200)).body.results as number;
const mandatesOf = async (location: string, customerId: string) =>
  (await request(testApp.app).get(`/v1/customers/${customerId}/mandates`).set(as(location)).expect(200)).body as {
    results: number;
    mandates: Array<Record<string, unknown>>;
  };
const card = (lastFour: string, overrides: Record<string, unknown> = {}) => {
  const base = cardInput() as { card: Record<string, unknown> };
  return { ...base, card: { ...base.card, lastFour }, ...overrides };
};
const offSession = () => ({ usage: 'OFF_SESSION', standingInstructionType: 'UNSCHEDULED', contextName: 'reorder', maxAmount: 5000, consent: consentInput() });

describe('a profile page saves a card with the browser’s secret (ON_SESSION)', () => {
  const location = newLocation();
  let customerId: string;
  let setup: SetupIntent;
  let confirmed: SetupIntent;

  beforeAll(async () => {
    customerId = (await createCustomer(testApp, location)).id;
    setup = await createSetupIntent(testApp, location, customerId);
    confirmed = (await confirmSetup(testApp, location, setup.id, card('4242'), await browserHeaders(testApp, location, setup.sessionSecret)).expect(200))
      .body as SetupIntent;
  });

  it('is created REQUIRES_PAYMENT_METHOD with an SI_ secret of its own, and no mandate terms', () => {
    expect(setup).toMatchObject({ customerId, status: 'REQUIRES_PAYMENT_METHOD', usage: 'ON_SESSION', consent: null, paymentMethodId: null, mandateId: null });
    expect(setup.sessionSecret).toMatch(new RegExp(`^SI_${setup.id}_SECRET_[A-Za-z0-9_-]{32}$`));
  });

  it('verifies the card for $0 and saves it to the customer: SUCCEEDED, naming the card, with no mandate', async () => {
    expect(confirmed).toMatchObject({ status: 'SUCCEEDED', mandateId: null, lastSetupError: null, card: { brand: 'VISA', lastFour: '4242' } });
    const cards = (await request(testApp.app).get(`/v1/customers/${customerId}/payment-methods`).set(as(location)).expect(200)).body;
    expect(cards.paymentMethods.map((saved: { id: string }) => saved.id)).toEqual([confirmed.paymentMethodId]);
    expect((await mandatesOf(location, customerId)).results).toBe(0);
  });

  it('records created, then the card attached and succeeded in the same transaction, never with the secret', async () => {
    const events = (await testApp.db.knex('events').select('type', 'data').where({ location_id: location }).orderBy('id')) as Array<{
      type: string;
      data: { object: Record<string, unknown> };
    }>;
    expect(events.map((event) => event.type)).toEqual(['customer.created', 'setup_intent.created', 'payment_method.attached', 'setup_intent.succeeded']);
    expect(JSON.stringify(events)).not.toContain(setup.sessionSecret);
  });

  it('keeps the secret sealed in its row, and lets it die once the setup intent SUCCEEDED', async () => {
    const [row] = (await testApp.db.knex('setup_intents').select('session_secret').where({ location_id: location, id: setup.id })) as Array<{
      session_secret: string;
    }>;
    expect(row?.session_secret).not.toContain(setup.sessionSecret.slice(-20));
    await request(testApp.app)
      .get(`/v1/setup-intents/${setup.id}`)
      .set(await browserHeaders(testApp, location, setup.sessionSecret))
      .expect(401);
  });
});

describe('the browser side', () => {
  const location = newLocation();

  it('reads and confirms only its own live setup intent: 401 without the secret or with another intent’s', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const mine = await createSetupIntent(testApp, location, customerId);
    const other = await createSetupIntent(testApp, location, customerId);
    await request(testApp.app)
      .get(`/v1/setup-intents/${mine.id}`)
      .set(await browserHeaders(testApp, location))
      .expect(401);
    await request(testApp.app)
      .get(`/v1/setup-intents/${mine.id}`)
      .set(await browserHeaders(testApp, location, other.sessionSecret))
      .expect(401);
    await confirmSetup(testApp, location, mine.id, card('4242'), await browserHeaders(testApp, location, other.sessionSecret)).expect(401);
    const read = await request(testApp.app)
      .get(`/v1/setup-intents/${mine.id}`)
      .set(await browserHeaders(testApp, location, mine.sessionSecret))
      .expect(200);
    expect(read.body.id).toBe(mine.id);
    // The secret names the customer: a profile page lists the cards it saves to, as a payment intent's secret allows.
    await request(testApp.app)
      .get(`/v1/customers/${customerId}/payment-methods`)
      .set(await browserHeaders(testApp, location, mine.sessionSecret))
      .expect(200);
    // The browser cannot create, list or cancel.
    await request(testApp.app)
      .post(`/v1/setup-intents/${mine.id}/cancel`)
      .set(await browserHeaders(testApp, location, mine.sessionSecret))
      .send({})
      .expect(403);
  });

  it('cannot use a setup intent’s secret for a payment intent, nor the reverse', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId);
    const intent = (
      await request(testApp.app)
        .post('/v1/payment-intents')
        .set(as(location))
        .send({ amount: 500, currency: 'USD', externalReferenceId: 'o-1', customerId })
        .expect(201)
    ).body as { id: string; sessionSecret: string };
    await request(testApp.app)
      .get(`/v1/payment-intents/${intent.id}`)
      .set(await browserHeaders(testApp, location, setup.sessionSecret))
      .expect(401);
    await request(testApp.app)
      .get(`/v1/setup-intents/${setup.id}`)
      .set(await browserHeaders(testApp, location, intent.sessionSecret))
      .expect(401);
  });
});

describe('OFF_SESSION: the card, its verification and the consent in one step', () => {
  const location = newLocation();

  it.each([
    ['consent', { usage: 'OFF_SESSION', standingInstructionType: 'RECURRING' }],
    ['standingInstructionType', { usage: 'OFF_SESSION', consent: consentInput() }],
    ['consent', { usage: 'ON_SESSION', consent: consentInput() }],
    ['maxAmount', { maxAmount: 100 }],
    ['consent.acceptedAt', { ...offSession(), consent: consentInput({ acceptedAt: new Date(Date.now() + 3_600_000).toISOString() }) }],
  ])('refuses a create without (or with a wrong) %s: 400 naming it, nothing made', async (fieldName, body) => {
    const customerId = (await createCustomer(testApp, location)).id;
    const refused = await postSetupIntent(testApp, location, { customerId, ...body }).expect(400);
    expect(refused.body.fieldName).toBe(fieldName);
    expect((await request(testApp.app).get('/v1/setup-intents').query({ customerId }).set(as(location)).expect(200)).body.results).toBe(0);
  });

  it('answers 404 naming customerId for a customer the location does not have', async () => {
    const refused = await postSetupIntent(testApp, location, { customerId: (await createCustomer(testApp, newLocation())).id }).expect(404);
    expect(refused.body).toMatchObject({ status: 404, fieldName: 'customerId' });
  });

  it('saves the card and makes the mandate with the recorded consent; the merchant then charges it off-session under it', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId, offSession());
    expect(setup.consent).toMatchObject({ textVersion: 'gold-plan-terms-v3', ipAddress: '203.0.113.7' });
    const done = (await confirmSetup(testApp, location, setup.id, card('4242'), await browserHeaders(testApp, location, setup.sessionSecret)).expect(200))
      .body as SetupIntent;
    expect(done).toMatchObject({ status: 'SUCCEEDED' });
    const { mandates } = await mandatesOf(location, customerId);
    expect(mandates).toEqual([
      expect.objectContaining({
        id: done.mandateId,
        paymentMethodId: done.paymentMethodId,
        standingInstructionType: 'UNSCHEDULED',
        contextName: 'reorder',
        maxAmount: 5000,
        status: 'ACTIVE',
        consent: setup.consent,
      }),
    ]);
    const events = await intentEvents(testApp, location, setup.id);
    expect(events.map((event) => event.type)).toEqual(['setup_intent.created', 'setup_intent.succeeded']);
    const charge = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(as(location))
      .send({
        amount: 2400,
        currency: 'USD',
        externalReferenceId: 'reorder-1',
        customerId,
        offSession: true,
        mandateId: done.mandateId,
        captureMethod: 'AUTOMATIC',
      })
      .expect(201);
    const paid = await request(testApp.app).post(`/v1/payment-intents/${charge.body.id}/confirm`).set(as(location)).send({}).expect(200);
    expect(paid.body).toMatchObject({ status: 'SUCCEEDED', paymentMethodId: done.paymentMethodId, standingInstructionType: 'UNSCHEDULED' });
  });
});

describe('a declined card saves nothing', () => {
  const location = newLocation();
  const lastYear = String(new Date().getUTCFullYear() - 1);

  it.each([
    ['0002', 'card_declined', 'generic_decline'],
    ['9995', 'card_declined', 'insufficient_funds'],
    ['0069', 'expired_card', null],
    ['0119', 'processing_error', null],
  ])('%s: back to REQUIRES_PAYMENT_METHOD with lastSetupError, no card, no mandate; another card then succeeds', async (which, code, declineCode) => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId, offSession());
    const failed = (await confirmSetup(testApp, location, setup.id, card(which)).expect(200)).body as SetupIntent;
    expect(failed).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', paymentMethodId: null, mandateId: null, lastSetupError: { code, declineCode } });
    expect(await cardsOf(location, customerId)).toBe(0);
    expect((await mandatesOf(location, customerId)).results).toBe(0);
    const retried = (await confirmSetup(testApp, location, setup.id, card('4444')).expect(200)).body as SetupIntent;
    expect(retried).toMatchObject({ status: 'SUCCEEDED', lastSetupError: null, card: { lastFour: '4444' } });
    expect((await intentEvents(testApp, location, setup.id)).map((event) => event.type)).toEqual([
      'setup_intent.created',
      'setup_intent.setup_failed',
      'setup_intent.succeeded',
    ]);
  });

  it('refuses a card whose expiry has passed as a save does (400 naming card.expiry), before the processor is asked', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId);
    const before = gated.verifications;
    const refused = await confirmSetup(
      testApp,
      location,
      setup.id,
      card('4242', { card: { type: 'visa', lastFour: '4242', expiry: { month: '01', year: lastYear } } }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.fieldName).toBe('card.expiry');
    expect(gated.verifications).toBe(before);
    expect(await getSetup(location, setup.id)).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', card: null });
  });

  it('passes the card that asks for authentication off-session: the payor is present when saving it', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId, offSession());
    expect((await confirmSetup(testApp, location, setup.id, card('3184')).expect(200)).body.status).toBe('SUCCEEDED');
  });
});

describe('the fingerprint and the card cap', () => {
  const location = newLocation();

  it('reuses the customer’s card with the same fingerprint: no second card, its expiry updated', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const existing = await saveCard(testApp, location, customerId, cardInput({ fingerprint: 'fp_same' }));
    const setup = await createSetupIntent(testApp, location, customerId);
    const renewed = { ...cardInput({ fingerprint: 'fp_same' }), card: { type: 'visa', lastFour: '4242', expiry: { month: '11', year: '2039' } } };
    const done = (await confirmSetup(testApp, location, setup.id, renewed).expect(200)).body as SetupIntent;
    expect(done.paymentMethodId).toBe(existing.id);
    expect(await cardsOf(location, customerId)).toBe(1);
  });

  it('answers a customer at the cap what a save answers, 409 CARD_LIMIT_REACHED, before asking the processor; nothing changes', async () => {
    const capped = await startTestApp({ maxCardsPerCustomer: 1 });
    try {
      const customerId = (await createCustomer(capped, location)).id;
      await saveCard(capped, location, customerId);
      const setup = await createSetupIntent(capped, location, customerId);
      const refused = await confirmSetup(capped, location, setup.id, card('4444')).expect(409);
      expect(refused.body.code).toBe(3004);
      const save = await request(capped.app).post(`/v1/customers/${customerId}/payment-methods`).set(capped.as(location)).send(card('5555')).expect(409);
      expect(refused.body.message).toBe(save.body.message);
      const after = (await request(capped.app).get(`/v1/setup-intents/${setup.id}`).set(capped.as(location)).expect(200)).body as SetupIntent;
      expect(after).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', card: null, lastSetupError: null });
    } finally {
      await capped.close();
    }
  });
});

describe('racing confirms of one setup intent', () => {
  const location = newLocation();

  it('save one card and one mandate: one confirm verifies, the others answer 409 naming PROCESSING or SUCCEEDED', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId, offSession());
    const before = gated.verifications;
    const answers = await Promise.all(Array.from({ length: 6 }, () => confirmSetup(testApp, location, setup.id, card('4242'))));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    for (const answer of answers.filter((one) => one.status === 409)) {
      expect(answer.body.message).toMatch(/^The setup intent is (PROCESSING|SUCCEEDED) and cannot be confirmed\.$/);
    }
    expect(gated.verifications - before).toBe(1);
    expect(await cardsOf(location, customerId)).toBe(1);
    expect((await mandatesOf(location, customerId)).results).toBe(1);
  });

  it('and a confirm racing the recovery of its own attempt saves once', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId, offSession());
    gated.loseAnswers(true);
    const left = (await confirmSetup(testApp, location, setup.id, card('4242')).expect(200)).body as SetupIntent;
    gated.loseAnswers(false);
    expect(left.status).toBe('PROCESSING');
    const recovered = await Promise.all([testApp.cardSetup.recoverProcessing(testApp.db.knex, 0), testApp.cardSetup.recoverProcessing(testApp.db.knex, 0)]);
    expect(recovered.reduce((sum, one) => sum + one, 0)).toBeGreaterThanOrEqual(1);
    expect(await getSetup(location, setup.id)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await cardsOf(location, customerId)).toBe(1);
    expect((await mandatesOf(location, customerId)).results).toBe(1);
  });
});

describe('cancel and expiry', () => {
  const location = newLocation();

  it('cancels an unfinished setup intent once; then confirm and cancel answer 409 naming CANCELED, and the secret is dead', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId);
    const canceled = await request(testApp.app)
      .post(`/v1/setup-intents/${setup.id}/cancel`)
      .set(as(location))
      .send({ cancellationReason: 'ABANDONED' })
      .expect(200);
    expect(canceled.body).toMatchObject({ status: 'CANCELED', cancellationReason: 'ABANDONED' });
    const again = await request(testApp.app).post(`/v1/setup-intents/${setup.id}/cancel`).set(as(location)).send({}).expect(409);
    expect(again.body.message).toBe('The setup intent is CANCELED and cannot be canceled.');
    expect((await confirmSetup(testApp, location, setup.id, card('4242')).expect(409)).body.message).toBe(
      'The setup intent is CANCELED and cannot be confirmed.',
    );
    await request(testApp.app)
      .get(`/v1/setup-intents/${setup.id}`)
      .set(await browserHeaders(testApp, location, setup.sessionSecret))
      .expect(401);
  });

  it(`expires ${SETUP_INTENT_EXPIRY_MINUTES} minutes after creation on the location's clock: CANCELED, EXPIRED, its secret dead`, async () => {
    // The sandbox clock is the plain sandbox's (not the gated one's).
    const sandbox = await startTestApp();
    try {
      const advance = (seconds: number) => request(sandbox.app).post('/v1/sandbox/clock/advance').set(sandbox.as(location)).send({ seconds }).expect(200);
      const read = async (id: string) => (await request(sandbox.app).get(`/v1/setup-intents/${id}`).set(sandbox.as(location)).expect(200)).body as SetupIntent;
      const customerId = (await createCustomer(sandbox, location)).id;
      const setup = await createSetupIntent(sandbox, location, customerId);
      const done = await createSetupIntent(sandbox, location, customerId);
      await confirmSetup(sandbox, location, done.id, card('4242')).expect(200);
      await advance(SETUP_INTENT_EXPIRY_MINUTES * 60 - 60);
      await request(sandbox.app)
        .get(`/v1/setup-intents/${setup.id}`)
        .set(await browserHeaders(sandbox, location, setup.sessionSecret))
        .expect(200);
      await advance(120);
      expect(await read(setup.id)).toMatchObject({ status: 'CANCELED', cancellationReason: 'EXPIRED' });
      expect(await read(done.id)).toMatchObject({ status: 'SUCCEEDED', cancellationReason: null });
      await request(sandbox.app)
        .get(`/v1/setup-intents/${setup.id}`)
        .set(await browserHeaders(sandbox, location, setup.sessionSecret))
        .expect(401);
      expect((await intentEvents(sandbox, location, setup.id)).map((event) => [event.type, event.previous])).toEqual([
        ['setup_intent.created', null],
        ['setup_intent.canceled', { status: 'REQUIRES_PAYMENT_METHOD' }],
      ]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('reads and erasure', () => {
  const location = newLocation();

  it('answers 404 for another location’s setup intent, and lists by customer and status', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId);
    await request(testApp.app).get(`/v1/setup-intents/${setup.id}`).set(as(newLocation())).expect(404);
    const listed = await request(testApp.app).get('/v1/setup-intents').query({ customerId, status: 'REQUIRES_PAYMENT_METHOD' }).set(as(location)).expect(200);
    expect(listed.body.setupIntents.map((one: SetupIntent) => one.id)).toEqual([setup.id]);
  });

  it('cancels the erased customer’s unfinished setup intents, cuts them from it, and clears the consent’s personal fields in rows and events', async () => {
    const customerId = (await createCustomer(testApp, location)).id;
    const open = await createSetupIntent(testApp, location, customerId, offSession());
    const done = await createSetupIntent(testApp, location, customerId, offSession());
    await confirmSetup(testApp, location, done.id, card('4242')).expect(200);
    await request(testApp.app).delete(`/v1/customers/${customerId}`).set(as(location)).expect(200);
    const erased = await getSetup(location, open.id);
    expect(erased).toMatchObject({ status: 'CANCELED', customerId: null, consent: { ipAddress: null, userAgent: null, textVersion: 'gold-plan-terms-v3' } });
    expect(await getSetup(location, done.id)).toMatchObject({ status: 'SUCCEEDED', customerId: null, consent: { ipAddress: null } });
    const events = await testApp.db.knex('events').select('data').where({ location_id: location });
    expect(JSON.stringify(events)).not.toContain('203.0.113.7');
    expect((await intentEvents(testApp, location, open.id)).map((event) => event.type)).toEqual(['setup_intent.created', 'setup_intent.canceled']);
  });
});

describe('the create’s Idempotency-Key', () => {
  it('replays the first answer, secret included (read again from the sealed row, never stored in the answer), and makes one setup intent', async () => {
    const location = newLocation();
    const customerId = (await createCustomer(testApp, location)).id;
    const body = { customerId, ...offSession() };
    const create = () => postSetupIntent(testApp, location, body).set('Idempotency-Key', 'save-card-once');
    const [first, second] = [await create().expect(201), await create().expect(201)];
    expect(second.body).toEqual(first.body);
    expect((await request(testApp.app).get('/v1/setup-intents').query({ customerId }).set(as(location)).expect(200)).body.results).toBe(1);
    const stored = await testApp.db.knex('idempotency_keys').select('*').where({ location_id: location });
    expect(JSON.stringify(stored)).not.toContain(first.body.sessionSecret.split('_SECRET_')[1]);
  });
});

describe('an erasure racing a verification in flight', () => {
  it('cancels the PROCESSING setup intent; the approval that comes after saves nothing and the confirm answers it CANCELED', async () => {
    const location = newLocation();
    const customerId = (await createCustomer(testApp, location)).id;
    const setup = await createSetupIntent(testApp, location, customerId, offSession());
    const before = gated.verifications;
    gated.hold();
    try {
      const confirming = confirmSetup(testApp, location, setup.id, card('4242')).then((answer) => answer);
      // The processor is asked only once PROCESSING is committed.
      while (gated.verifications === before) await new Promise((resolve) => setTimeout(resolve, 5));
      await request(testApp.app).delete(`/v1/customers/${customerId}`).set(as(location)).expect(200);
      gated.release();
      const answer = await confirming;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'CANCELED', customerId: null, paymentMethodId: null, mandateId: null });
    } finally {
      gated.release();
    }
    const rowsAt = async (table: string) =>
      Number((await testApp.db.knex(table).where({ location_id: location }).count<Array<{ count: string }>>('* as count'))[0]?.count);
    expect([await rowsAt('payment_methods'), await rowsAt('mandates')]).toEqual([0, 0]);
    expect((await intentEvents(testApp, location, setup.id)).map((event) => [event.type, event.previous])).toEqual([
      ['setup_intent.created', null],
      ['setup_intent.canceled', { status: 'PROCESSING' }],
    ]);
  });
});
