import request from 'supertest';
import { sandboxRefundSettlesAfterMs } from '../../../src/refunds/refund-sweeps';
import { REFUND_FAILS_LAST_FOUR, REFUND_LATER_LAST_FOUR } from '../../../src/payment-processor/sandbox-cards';
import { SandboxProcessor } from '../../../src/payment-processor/sandbox-processor';
import { capture, checkoutWith, confirm, paidIntent, refund } from '../../factories/checkout';
import { newLocation } from '../../factories/locations';
import { GatedProcessor } from '../../support/gated-processor';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Refunds through HTTP, with the sandbox deciding by the card the intent was
 * paid with: partial and full refunds within what was captured, the
 * processor's declines and late answers, the refund window, the reads, the
 * events, and the bound on what is refunded however requests race. Runs on
 * PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
let gated: GatedProcessor;
beforeAll(async () => {
  testApp = await startTestApp({
    processor: (db) => {
      gated = new GatedProcessor(new SandboxProcessor(db.knex, { latencyMs: 0, refundSettlesAfterMs: sandboxRefundSettlesAfterMs(5) }));
      return gated;
    },
  });
});
afterAll(() => testApp.close());

const readIntent = async (location: string, id: string) =>
  (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200)).body;
const readRefund = async (location: string, id: string) => (await request(testApp.app).get(`/v1/refunds/${id}`).set(testApp.as(location)).expect(200)).body;

/** The refund's events, oldest first. */
async function refundEvents(
  location: string,
  refundId: string,
): Promise<Array<{ type: string; customerId: string | null; data: { object: object; previous: unknown } }>> {
  const rows = (await testApp.db
    .knex('events')
    .select('type', 'customer_id', 'data')
    .where({ location_id: location })
    .whereRaw("data->'object'->>'id' = ?", [refundId])
    .orderBy('id')) as Array<{ type: string; customer_id: string | null; data: { object: object; previous: unknown } }>;
  return rows.map((row) => ({ type: row.type, customerId: row.customer_id, data: row.data }));
}

/** As if the sandbox's late refunds had waited their time: what the clock would do. */
const letLateRefundsSettle = () =>
  testApp.db
    .knex('sandbox_processor_operations')
    .where({ operation: 'refund' })
    .whereNotNull('settles_at')
    .update({ settles_at: new Date(0) });

describe('a refund of a captured payment', () => {
  it('refunds what is left when no amount is given, and then nothing more (409 naming what is left)', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { amount: 1250 });
    expect(intent).toMatchObject({ amountCaptured: 1250, amountRefunded: 0, refundableAmount: 1250 });

    const made = await refund(testApp, location, intent.id).expect(201);
    expect(made.body).toEqual({
      id: expect.any(String),
      paymentIntentId: intent.id,
      amount: 1250,
      reason: null,
      status: 'SUCCEEDED',
      failureCode: null,
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(await readIntent(location, intent.id)).toMatchObject({ status: 'SUCCEEDED', amountCaptured: 1250, amountRefunded: 1250, refundableAmount: 0 });

    const more = await refund(testApp, location, intent.id, { amount: 1 }).expect(409);
    expect(more.body).toMatchObject({ code: 3009, messageKey: 'REFUND_EXCEEDS_CAPTURED', fieldName: 'amount' });
    expect(more.body.message).toContain(': 0 (minor units) may still be refunded');
    await refund(testApp, location, intent.id).expect(409, /REFUND_EXCEEDS_CAPTURED/);
  });

  it('takes several partial refunds while their sum stays within the captured amount', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { amount: 1250 });
    await refund(testApp, location, intent.id, { amount: 500, reason: 'REQUESTED_BY_CUSTOMER' }).expect(201, /"reason":"REQUESTED_BY_CUSTOMER"/);
    await refund(testApp, location, intent.id, { amount: 700, reason: 'DUPLICATE' }).expect(201);
    const over = await refund(testApp, location, intent.id, { amount: 100 }).expect(409);
    expect(over.body.message).toContain(': 50 (minor units) may still be refunded');
    expect(await readIntent(location, intent.id)).toMatchObject({ amountRefunded: 1200, refundableAmount: 50 });
    await refund(testApp, location, intent.id, { amount: 50, reason: 'FRAUDULENT' }).expect(201);
  });

  it('refunds what a partial capture captured, not what was authorized', async () => {
    const location = newLocation();
    const { intent, cardId } = await checkoutWith(testApp, location, { amount: 1000 });
    await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200, /REQUIRES_CAPTURE/);
    const captured = await capture(testApp, location, intent.id, { amountToCapture: 600 }).expect(200);
    expect(captured.body).toMatchObject({ status: 'SUCCEEDED', amountCaptured: 600, refundableAmount: 600 });
    await refund(testApp, location, intent.id, { amount: 601 }).expect(409, /: 600 \(minor units\)/);
    await refund(testApp, location, intent.id).expect(201, /"amount":600/);
  });

  it('refuses a bad amount or reason with 400 naming it, recording nothing', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location);
    for (const [body, fieldName] of [
      [{ amount: 0 }, 'amount'],
      [{ amount: -5 }, 'amount'],
      [{ amount: 1.5 }, 'amount'],
      [{ reason: 'CHANGED_MIND' }, 'reason'],
      [{ amount: 100, currency: 'USD' }, 'currency'],
    ] as const) {
      const refused = await refund(testApp, location, intent.id, body).expect(400);
      expect(refused.body.fieldName).toBe(fieldName);
    }
    expect(await testApp.db.knex('refunds').where({ location_id: location })).toEqual([]);
  });

  it('is 404 for an intent this location does not have, and 409 naming the status for one not SUCCEEDED', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location);
    await refund(testApp, newLocation(), intent.id).expect(404, /PAYMENT_INTENT_NOT_FOUND/);
    const { intent: unpaid } = await checkoutWith(testApp, location);
    const refused = await refund(testApp, location, unpaid.id).expect(409);
    expect(refused.body).toMatchObject({
      messageKey: 'PAYMENT_INTENT_STATUS_CONFLICT',
      message: 'The payment intent is REQUIRES_PAYMENT_METHOD and cannot be refunded.',
    });
  });

  it(`closes ${'REFUND_WINDOW_DAYS'} (90 by default) after the capture: 409 REFUND_WINDOW_CLOSED, nothing recorded`, async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location);
    const capturedDaysAgo = (days: number) =>
      testApp.db
        .knex('payment_intents')
        .where({ location_id: location, id: intent.id })
        .update({ captured_at: new Date(Date.now() - days * 24 * 60 * 60 * 1000) });
    await capturedDaysAgo(91);
    const closed = await refund(testApp, location, intent.id, { amount: 100 }).expect(409);
    expect(closed.body).toMatchObject({ code: 3010, messageKey: 'REFUND_WINDOW_CLOSED' });
    expect(closed.body.message).toContain('refunds close 90 days after');
    expect(await readIntent(location, intent.id)).toMatchObject({ amountRefunded: 0 });
    await capturedDaysAgo(89);
    await refund(testApp, location, intent.id, { amount: 100 }).expect(201);
  });
});

describe("the sandbox's refund cards", () => {
  it(`${REFUND_FAILS_LAST_FOUR} fails every refund (refund_declined), and the amount is refundable again`, async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { lastFour: REFUND_FAILS_LAST_FOUR, amount: 800 });
    const failed = await refund(testApp, location, intent.id, { amount: 300 }).expect(201);
    expect(failed.body).toMatchObject({ status: 'FAILED', failureCode: 'refund_declined', amount: 300 });
    expect(await readIntent(location, intent.id)).toMatchObject({ amountRefunded: 0, refundableAmount: 800 });
    expect((await refundEvents(location, failed.body.id)).map(({ type }) => type)).toEqual(['refund.created', 'refund.failed']);
    // All 800 may still be asked for: the failed 300 took nothing.
    await refund(testApp, location, intent.id).expect(201, /"amount":800/);
  });

  it(`${REFUND_LATER_LAST_FOUR} answers later: PENDING (counted as refunded), then SUCCEEDED by the sweep once the processor has settled it`, async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { lastFour: REFUND_LATER_LAST_FOUR, amount: 800 });
    const pending = await refund(testApp, location, intent.id, { amount: 300 }).expect(201);
    expect(pending.body).toMatchObject({ status: 'PENDING', failureCode: null });
    expect(await readIntent(location, intent.id)).toMatchObject({ amountRefunded: 300, refundableAmount: 500 });

    // Not settled at the processor yet: the sweep leaves it PENDING.
    await testApp.refunds.settlePending(testApp.db.knex, 0);
    expect(await readRefund(location, pending.body.id)).toMatchObject({ status: 'PENDING' });

    await letLateRefundsSettle();
    expect(await testApp.refunds.settlePending(testApp.db.knex, 0)).toBeGreaterThanOrEqual(1);
    expect(await readRefund(location, pending.body.id)).toMatchObject({ status: 'SUCCEEDED' });
    const events = await refundEvents(location, pending.body.id);
    expect(events.map(({ type }) => type)).toEqual(['refund.created', 'refund.succeeded']);
    expect(events[1]?.data.previous).toEqual({ status: 'PENDING' });
    // Swept again: nothing moves twice.
    await testApp.refunds.settlePending(testApp.db.knex, 0);
    expect(await refundEvents(location, pending.body.id)).toHaveLength(2);
  });

  it('settles a later refund once when several replicas sweep at the same moment', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { lastFour: REFUND_LATER_LAST_FOUR, amount: 800 });
    const pending = await refund(testApp, location, intent.id, { amount: 300 }).expect(201, /"status":"PENDING"/);
    await letLateRefundsSettle();
    // Three sweeps at once, as three replicas' schedules might fall together.
    await Promise.all([0, 1, 2].map(() => testApp.refunds.settlePending(testApp.db.knex, 0)));
    expect(await readRefund(location, pending.body.id)).toMatchObject({ status: 'SUCCEEDED' });
    expect((await refundEvents(location, pending.body.id)).map(({ type }) => type)).toEqual(['refund.created', 'refund.succeeded']);
    expect(await readIntent(location, intent.id)).toMatchObject({ amountRefunded: 300, refundableAmount: 500 });
  });

  it('makes a later refund SUCCEEDED within SANDBOX_ASYNC_REFUND_SECONDS: the processor settles it two sweep turns before', () => {
    expect(sandboxRefundSettlesAfterMs(5)).toBe(3_000);
    expect(sandboxRefundSettlesAfterMs(1)).toBe(0);
  });

  it('keeps a refund PENDING when the processor does not answer, and the sweep settles it by asking again with the same key', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location);
    gated.loseAnswers(true);
    let lost;
    try {
      lost = await refund(testApp, location, intent.id, { amount: 200 }).expect(201);
    } finally {
      gated.loseAnswers(false);
    }
    expect(lost.body.status).toBe('PENDING');
    await testApp.refunds.settlePending(testApp.db.knex, 0);
    expect(await readRefund(location, lost.body.id)).toMatchObject({ status: 'SUCCEEDED' });
    // The processor refunded once: the retry found its answer by the refund's id.
    expect(await testApp.db.knex('sandbox_processor_operations').where({ location_id: location, operation: 'refund' })).toHaveLength(1);
  });
});

describe('reads', () => {
  it("lists an intent's refunds newest first, page by page, and reads one; another location's is 404", async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { amount: 900 });
    const ids: string[] = [];
    for (const amount of [100, 200, 300]) ids.push((await refund(testApp, location, intent.id, { amount }).expect(201)).body.id);

    const first = await request(testApp.app).get(`/v1/payment-intents/${intent.id}/refunds?limit=2`).set(testApp.as(location)).expect(200);
    expect(first.body).toMatchObject({ results: 2, hasMore: true });
    expect(first.body.refunds.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const rest = await request(testApp.app)
      .get(`/v1/payment-intents/${intent.id}/refunds?limit=2&startingAfter=${ids[1]}`)
      .set(testApp.as(location))
      .expect(200);
    expect(rest.body).toMatchObject({ results: 1, hasMore: false, refunds: [{ id: ids[0], amount: 100, status: 'SUCCEEDED' }] });

    expect(await readRefund(location, ids[0] as string)).toMatchObject({ id: ids[0], paymentIntentId: intent.id, amount: 100 });
    await request(testApp.app)
      .get(`/v1/refunds/${ids[0]}`)
      .set(testApp.as(newLocation()))
      .expect(404, /REFUND_NOT_FOUND/);
    await request(testApp.app)
      .get(`/v1/payment-intents/${intent.id}/refunds`)
      .set(testApp.as(newLocation()))
      .expect(404, /PAYMENT_INTENT_NOT_FOUND/);
    const { intent: other } = await paidIntent(testApp, location);
    await request(testApp.app)
      .get(`/v1/payment-intents/${other.id}/refunds?startingAfter=${ids[0]}`)
      .set(testApp.as(location))
      .expect(400, /"fieldName":"startingAfter"/);
  });
});

describe('an Idempotency-Key', () => {
  it('makes one refund however often the request is sent, and a replay answers it as it stands', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { lastFour: REFUND_LATER_LAST_FOUR });
    const first = await refund(testApp, location, intent.id, { amount: 100 }, 'refund-key-1').expect(201);
    expect(first.body.status).toBe('PENDING');
    await letLateRefundsSettle();
    const again = await refund(testApp, location, intent.id, { amount: 100 }, 'refund-key-1').expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual({ ...first.body, status: 'SUCCEEDED' });
    expect(await testApp.db.knex('refunds').where({ location_id: location })).toHaveLength(1);
    await refund(testApp, location, intent.id, { amount: 200 }, 'refund-key-1').expect(422);
  });
});

describe('racing refunds', () => {
  it.each([
    ['answered at once', '4242'],
    ['left PENDING', REFUND_LATER_LAST_FOUR],
  ])('twenty refunds of 30 on a capture of 100 (%s) refund at most 100', async (_how, lastFour) => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { lastFour, amount: 100 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(testApp, location, intent.id, { amount: 30 })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(17);
    const rows = (await testApp.db.knex('refunds').where({ location_id: location, payment_intent_id: intent.id })) as Array<{ amount: number }>;
    expect(rows.reduce((sum, row) => sum + row.amount, 0)).toBe(90);
    expect(await readIntent(location, intent.id)).toMatchObject({ amountRefunded: 90, refundableAmount: 10 });
  });
});

describe("an erased customer's intent", () => {
  it('can still be refunded, and the refund and its events carry no personal data', async () => {
    const location = newLocation();
    const { intent, customerId } = await paidIntent(testApp, location);
    await request(testApp.app).delete(`/v1/customers/${customerId}`).set(testApp.as(location)).expect(200);
    expect(await readIntent(location, intent.id)).toMatchObject({ customerId: null, email: null, status: 'SUCCEEDED' });
    const made = await refund(testApp, location, intent.id, { amount: 100 }).expect(201);
    const events = await refundEvents(location, made.body.id);
    expect(events.map(({ type }) => type)).toEqual(['refund.created', 'refund.succeeded']);
    for (const event of events) {
      expect(event.customerId).toBeNull();
      expect(Object.keys(event.data.object).sort()).toEqual(['amount', 'createdAt', 'failureCode', 'id', 'paymentIntentId', 'reason', 'status']);
    }
  });
});
