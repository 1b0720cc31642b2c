import request from 'supertest';
import { processorKeys } from '../../../../src/payment-processor/payment-processor';
import { SandboxProcessor } from '../../../../src/payment-processor/sandbox-processor';
import { cancel, capture, checkoutWith, confirm, intentEvents, sandboxOperations } from '../../../factories/checkout';
import { newLocation } from '../../../factories/locations';
import { GatedProcessor } from '../../../support/gated-processor';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * What must happen once however requests race or processes die: a confirm
 * authorizes once, a capture captures once, an authorization past its
 * capture window is voided once, and an intent whose processor answer was
 * lost is settled by asking again with the same idempotency key.
 */
let testApp: TestApp;
let gated: GatedProcessor;
beforeAll(async () => {
  testApp = await startTestApp({
    captureWindowSeconds: 1,
    processor: (db) => {
      gated = new GatedProcessor(new SandboxProcessor(db.knex, { latencyMs: 0 }));
      return gated;
    },
  });
});
afterAll(() => testApp.close());

const read = async (location: string, id: string) => (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200)).body;

const types = async (location: string, id: string) => (await intentEvents(testApp, location, id)).map(({ type }) => type);

describe('confirm, twice or racing', () => {
  it('a second confirm answers 409 naming the status the first reached, and authorizes nothing more', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200, /REQUIRES_CAPTURE/);
    const again = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(409);
    expect(again.body.message).toBe('The payment intent is REQUIRES_CAPTURE and cannot be confirmed.');
    expect(await sandboxOperations(testApp, location, intent.id)).toHaveLength(1);
  });

  it('ten racing confirms: one is answered 200, nine 409, one authorization, one PROCESSING event', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    const responses = await Promise.all(Array.from({ length: 10 }, () => confirm(testApp, location, intent.id, { paymentMethodId: cardId })));
    expect(responses.map(({ status }) => status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect(await sandboxOperations(testApp, location, intent.id)).toEqual([
      expect.objectContaining({ operation: 'authorize', idempotency_key: `${intent.id}:1` }),
    ]);
    expect(await types(location, intent.id)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_capture']);
  });

  it('a confirm while another is PROCESSING is a 409 naming PROCESSING; so is a cancel', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    gated.hold();
    const first = confirm(testApp, location, intent.id, { paymentMethodId: cardId }).then((response) => response);
    try {
      while ((await read(location, intent.id)).status !== 'PROCESSING') await new Promise((resolve) => setTimeout(resolve, 10));
      const second = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(409);
      expect(second.body.message).toBe('The payment intent is PROCESSING and cannot be confirmed.');
      await cancel(testApp, location, intent.id).expect(409, /PROCESSING and cannot be canceled/);
    } finally {
      gated.release();
    }
    expect((await first).body.status).toBe('REQUIRES_CAPTURE');
  });
});

describe('an erasure while the processor is asked', () => {
  it("the answer recorded after the customer is erased carries neither the person's id nor the e-mail", async () => {
    const location = newLocation();
    const { customerId, cardId } = await checkoutWith(testApp, location);
    const created = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(location))
      .send({ amount: 900, currency: 'USD', externalReferenceId: 'order-erased-mid-confirm', customerId, email: 'sam@example.com' })
      .expect(201);
    const id = created.body.id as string;
    gated.hold();
    const confirming = confirm(testApp, location, id, { paymentMethodId: cardId }).then((response) => response);
    try {
      while ((await read(location, id)).status !== 'PROCESSING') await new Promise((resolve) => setTimeout(resolve, 10));
      await request(testApp.app).delete(`/v1/customers/${customerId}`).set(testApp.as(location)).expect(200);
    } finally {
      gated.release();
    }
    expect((await confirming).body).toMatchObject({ status: 'REQUIRES_CAPTURE', customerId: null, email: null });
    const events = await intentEvents(testApp, location, id);
    expect(events.map(({ type }) => type)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_capture']);
    // An erasure keeps the (pseudonymous) ids of the events before it and nulls their e-mail; the answer recorded after it is cut from the person.
    for (const { object } of events) expect(object).toMatchObject({ email: null });
    expect(events[2]?.object).toMatchObject({ customerId: null, status: 'REQUIRES_CAPTURE' });
    const { rows } = (await testApp.db.knex.raw('select count(*)::int as count from events where location_id = ? and data::text like ?', [
      location,
      '%sam@example.com%',
    ])) as {
      rows: Array<{ count: number }>;
    };
    expect(rows[0]?.count).toBe(0);
  });
});

describe('capture, racing', () => {
  it('five racing captures capture once: one 200, the others 409 naming SUCCEEDED, one succeeded event', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const responses = await Promise.all(Array.from({ length: 5 }, () => capture(testApp, location, intent.id)));
    const statuses = responses.map(({ status }) => status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    for (const response of responses.filter(({ status }) => status !== 200)) {
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('The payment intent is SUCCEEDED and cannot be captured.');
    }
    expect((await types(location, intent.id)).filter((type) => type === 'payment_intent.succeeded')).toHaveLength(1);
    expect((await sandboxOperations(testApp, location, intent.id)).filter(({ operation }) => operation === 'capture')).toHaveLength(1);
  });

  it('a capture and a cancel racing: exactly one wins, and the processor agrees with the intent', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const [captured, canceled] = await Promise.all([capture(testApp, location, intent.id), cancel(testApp, location, intent.id)]);
    expect([captured.status, canceled.status].sort()).toEqual([200, 409]);
    const final = await read(location, intent.id);
    const [authorization] = await sandboxOperations(testApp, location, intent.id);
    expect(authorization?.state).toBe(final.status === 'SUCCEEDED' ? 'captured' : 'voided');
    expect(final.status).toBe(captured.status === 200 ? 'SUCCEEDED' : 'CANCELED');
  });
});

describe('a capture and a cancel, each reaching the processor first while the other records', () => {
  /** The processor's half of a request whose record has not landed yet: what a racing request finds there. */
  const keysOf = (intentId: string) => ({ ...processorKeys(intentId, 1), reference: `${intentId}:1` });

  it('a void first: the capture answers 409 naming CANCELED and records nothing; the cancel then records it', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const keys = keysOf(intent.id);
    expect(await gated.void({ locationId: location, idempotencyKey: keys.void, reference: keys.reference })).toEqual({ status: 'voided' });
    await capture(testApp, location, intent.id).expect(409, /CANCELED and cannot be captured/);
    expect((await read(location, intent.id)).status).toBe('REQUIRES_CAPTURE');
    expect(await types(location, intent.id)).not.toContain('payment_intent.payment_failed');
    const canceled = await cancel(testApp, location, intent.id).expect(200);
    expect(canceled.body).toMatchObject({ status: 'CANCELED', latestPayment: { status: 'VOIDED' } });
  });

  it('a capture first: the cancel answers 409 naming SUCCEEDED and records nothing; the capture then records it', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const keys = keysOf(intent.id);
    expect(await gated.capture({ locationId: location, idempotencyKey: keys.capture, reference: keys.reference, amount: 1250 })).toEqual({
      status: 'captured',
      amount: 1250,
    });
    await cancel(testApp, location, intent.id).expect(409, /SUCCEEDED and cannot be canceled/);
    expect((await read(location, intent.id)).status).toBe('REQUIRES_CAPTURE');
    const captured = await capture(testApp, location, intent.id).expect(200);
    expect(captured.body).toMatchObject({ status: 'SUCCEEDED', latestPayment: { status: 'CAPTURED', amount: 1250 } });
    expect((await types(location, intent.id)).filter((type) => type === 'payment_intent.succeeded')).toHaveLength(1);
  });

  it('a capture whose record was lost is recorded by the capture window: the processor holds the money, so SUCCEEDED', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const keys = keysOf(intent.id);
    await gated.capture({ locationId: location, idempotencyKey: keys.capture, reference: keys.reference, amount: 1250 });
    await testApp.db
      .knex('payment_intents')
      .where({ location_id: location, id: intent.id })
      .update({ capture_before: testApp.db.knex.raw("now() - interval '1 second'") });
    await testApp.checkout.voidExpiredAuthorizations(testApp.db.knex);
    expect(await read(location, intent.id)).toMatchObject({
      status: 'SUCCEEDED',
      cancellationReason: null,
      latestPayment: { status: 'CAPTURED', amount: 1250 },
    });
    expect((await types(location, intent.id)).at(-1)).toBe('payment_intent.succeeded');
  });
});

describe('the capture window', () => {
  it('voids an authorization not captured in time, once, CANCELED with cancellationReason AUTOMATIC; a later capture is a 409', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    const fresh = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    // Past its one-second window; the other is inside it.
    await testApp.db
      .knex('payment_intents')
      .where({ location_id: location, id: intent.id })
      .update({ capture_before: testApp.db.knex.raw("now() - interval '1 second'") });
    await confirm(testApp, location, fresh.intent.id, { paymentMethodId: fresh.cardId }).expect(200);
    await testApp.db
      .knex('payment_intents')
      .where({ location_id: location, id: fresh.intent.id })
      .update({ capture_before: testApp.db.knex.raw("now() + interval '1 hour'") });

    // Two replicas sweeping at once void it once.
    const swept = await Promise.all([testApp.checkout.voidExpiredAuthorizations(testApp.db.knex), testApp.checkout.voidExpiredAuthorizations(testApp.db.knex)]);
    expect(swept.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(1);
    const voided = await read(location, intent.id);
    expect(voided).toMatchObject({ status: 'CANCELED', cancellationReason: 'AUTOMATIC', latestPayment: { status: 'VOIDED' } });
    expect((await types(location, intent.id)).filter((type) => type === 'payment_intent.canceled')).toHaveLength(1);
    const [event] = (await intentEvents(testApp, location, intent.id)).slice(-1);
    expect(event?.previous).toEqual({ status: 'REQUIRES_CAPTURE', cancellationReason: null, latestPayment: expect.objectContaining({ status: 'AUTHORIZED' }) });
    expect((await read(location, fresh.intent.id)).status).toBe('REQUIRES_CAPTURE');
    await capture(testApp, location, intent.id).expect(409, /CANCELED and cannot be captured/);
  });

  it('an authorization is given CAPTURE_WINDOW_SECONDS from its approval', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location);
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    const row = (await testApp.db.knex('payment_intents').select('capture_before', 'updated_at').where({ location_id: location, id: intent.id }).first()) as {
      capture_before: string | Date;
      updated_at: string | Date;
    };
    const windowMs = new Date(row.capture_before).getTime() - new Date(row.updated_at).getTime();
    expect(windowMs).toBeGreaterThan(500);
    expect(windowMs).toBeLessThanOrEqual(1500);
  });
});

describe('an answer lost between the processor and the service', () => {
  it('leaves the intent PROCESSING (answered 200 as such); the recovery asks again with the same key and records the first answer', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { captureMethod: 'AUTOMATIC' });
    gated.loseAnswers(true);
    let lost;
    try {
      lost = await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200);
    } finally {
      gated.loseAnswers(false);
    }
    expect(lost.body).toMatchObject({ status: 'PROCESSING', latestPayment: { status: 'PENDING' } });
    // Not yet past the recovery bound: left alone.
    expect(await testApp.checkout.recoverProcessing(testApp.db.knex, 3600)).toBe(0);
    const asked = gated.authorizations;
    expect(await testApp.checkout.recoverProcessing(testApp.db.knex, 0)).toBeGreaterThanOrEqual(1);
    expect(gated.authorizations).toBeGreaterThan(asked);
    expect(await read(location, intent.id)).toMatchObject({ status: 'SUCCEEDED', latestPayment: { status: 'CAPTURED' } });
    // Asked twice, charged once: one authorization at the processor.
    expect(await sandboxOperations(testApp, location, intent.id)).toEqual([expect.objectContaining({ operation: 'authorize', state: 'captured' })]);
    expect(await types(location, intent.id)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
  });
});
