import request from 'supertest';
import { addDays } from '../../../src/settlement/banking-days';
import { inClock } from '../../../src/platform/clock/location-clock';
import { SettlementService } from '../../../src/settlement/settlement.service';
import { capture, checkoutWith, confirm, paidIntent, refund } from '../../factories/checkout';
import { newLocation } from '../../factories/locations';
import { advanceToLocal, batchesOf, linesOfBatch, settleWith, type BatchBody } from '../../factories/settlement';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Issue 55 on the sandbox clock: a capture's business date by the
 * location's cutoff, the close of each day into a batch with its payout (or
 * its deficit carried forward), and the invariants of every closed batch.
 * Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const ROUND = { fees: { percentBps: 0, fixed: 0 } };

/** Every closed batch's invariants (docs/settlement.md): its lines sum to zero, its net is its movements', and net = payout + carriedOut − carriedIn. */
async function expectBalanced(location: string, batch: BatchBody): Promise<void> {
  const lines = await linesOfBatch(testApp, location, batch.id);
  const movements = lines.filter((line) => ['CAPTURE', 'REFUND', 'REFUND_FAILURE'].includes(line.type));
  expect(lines.reduce((sum, line) => sum + line.net, 0)).toBe(0);
  expect(movements.reduce((sum, line) => sum + line.net, 0)).toBe(batch.totals.net);
  expect(batch.totals.net).toBe(batch.totals.payout + batch.totals.carriedOut - batch.totals.carriedIn);
  expect(lines.length).toBe(batch.counts.lines);
  for (const line of lines) expect(line).toMatchObject({ batchId: batch.id, businessDate: batch.businessDate });
}

async function captureAt(location: string, amount: number, tip = 0): Promise<string> {
  const checkout = await checkoutWith(testApp, location, { amount });
  await confirm(testApp, location, checkout.intent.id, { paymentMethodId: checkout.cardId }).expect(200);
  await capture(testApp, location, checkout.intent.id, tip === 0 ? {} : { amountDetails: { tip } }).expect(200);
  return checkout.intent.id;
}

describe('business days on the sandbox clock', () => {
  it('dates a capture at 03:59 local to the day before and one at 04:01 to the day, and closes each at its cutoff into a batch and a payout', async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, ROUND, '12:00');
    const next = addDays(day, 1);
    const trail = async (id: string) => (await request(testApp.app).get(`/v1/payment-intents/${id}/ledger`).set(testApp.as(location)).expect(200)).body.lines;
    await advanceToLocal(testApp, location, `${next} 03:59`);
    const early = await captureAt(location, 1250, 200);
    expect((await trail(early))[0]).toMatchObject({
      type: 'CAPTURE',
      businessDate: day,
      gross: 1450,
      tip: 200,
      fee: 0,
      net: 1450,
      batchId: null,
      payoutId: null,
    });
    const waiting = await request(testApp.app).get('/v1/batches/current').set(testApp.as(location)).expect(200);
    expect(waiting.body).toMatchObject({ businessDate: day, status: 'OPEN', closedAt: null, totals: { gross: 1450, tips: 200, net: 1450, payout: 0 } });

    // Past the cutoff: the advance closes the day; the next capture is the new day's.
    await advanceToLocal(testApp, location, `${next} 04:01`);
    const late = await captureAt(location, 800);
    expect((await trail(late))[0]).toMatchObject({ type: 'CAPTURE', businessDate: next, gross: 800, net: 800, batchId: null });
    expect((await trail(early))[0].batchId).toBe(waiting.body.id);
    const current = await request(testApp.app).get('/v1/batches/current').set(testApp.as(location)).expect(200);
    expect(current.body).toMatchObject({ businessDate: next, status: 'OPEN', totals: { gross: 800, net: 800, payout: 0 }, counts: { captures: 1 } });

    // The clock passes the day after next's cutoff: both days close.
    const third = addDays(next, 1);
    await advanceToLocal(testApp, location, `${third} 04:00:30`);
    const batches = await batchesOf(testApp, location);
    expect(batches.map((batch) => [batch.businessDate, batch.status, batch.totals.net, batch.totals.payout])).toEqual([
      [next, 'CLOSED', 800, 800],
      [day, 'CLOSED', 1450, 1450],
    ]);
    for (const batch of batches) await expectBalanced(location, batch);
    const payout = await request(testApp.app).get(`/v1/payouts/${batches[1]!.payoutId}`).set(testApp.as(location)).expect(200);
    expect(payout.body).toMatchObject({ amount: 1450, currency: 'USD', batchId: batches[1]!.id });
    expect((await trail(early))[0]).toMatchObject({ batchId: batches[1]!.id, payoutId: batches[1]!.payoutId });
    await request(testApp.app).get('/v1/batches/current').set(testApp.as(location)).expect(404);
  });

  it('carries a day whose refunds pass its captures into the next batch: no payout, CARRY_FORWARD_OUT and _IN, the next payout smaller', async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, ROUND, '10:00');
    const { intent } = await paidIntent(testApp, location, { amount: 5000 });
    const next = addDays(day, 1);
    await advanceToLocal(testApp, location, `${next} 10:00`);
    await refund(testApp, location, intent.id, { amount: 3000 }).expect(201);
    const third = addDays(next, 1);
    await advanceToLocal(testApp, location, `${third} 10:00`);
    await paidIntent(testApp, location, { amount: 4000 });
    const fourth = addDays(third, 1);
    await advanceToLocal(testApp, location, `${fourth} 10:00`);

    const batches = await batchesOf(testApp, location, { status: 'CLOSED' });
    expect(batches.map((batch) => [batch.businessDate, batch.totals.net, batch.totals.carriedIn, batch.totals.carriedOut, batch.totals.payout])).toEqual([
      [third, 4000, -3000, 0, 1000],
      [next, -3000, 0, -3000, 0],
      [day, 5000, 0, 0, 5000],
    ]);
    expect(batches[1]!.payoutId).toBeNull();
    for (const batch of batches) await expectBalanced(location, batch);
    expect((await linesOfBatch(testApp, location, batches[0]!.id)).map((line) => line.type)).toEqual(['CARRY_FORWARD_IN', 'CAPTURE', 'PAYOUT']);
  });

  it('pays a Friday, Saturday or Sunday business day on Monday or Tuesday, as Toast’s deposit table says', async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, ROUND, '10:00');
    // Move to the next Friday and capture on it, the Saturday and the Sunday.
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    const friday = addDays(day, (5 - weekday + 7) % 7 || 7);
    const dates = [0, 1, 2].map((offset) => addDays(friday, offset));
    for (const date of dates) {
      await advanceToLocal(testApp, location, `${date} 12:00`);
      await paidIntent(testApp, location, { amount: 1000 });
    }
    const monday = addDays(friday, 3);
    const tuesday = addDays(friday, 4);
    await advanceToLocal(testApp, location, `${tuesday} 12:00`);
    const payouts = (await request(testApp.app).get('/v1/payouts').set(testApp.as(location)).expect(200)).body.payouts as Array<{
      batchId: string;
      arrivalDate: string;
      status: string;
    }>;
    const batches = await batchesOf(testApp, location, { status: 'CLOSED' });
    const arrivalOf = (date: string) => payouts.find((payout) => payout.batchId === batches.find((batch) => batch.businessDate === date)!.id)!;
    expect(dates.map((date) => arrivalOf(date).arrivalDate)).toEqual([monday, monday, tuesday]);
    // By Tuesday noon the Friday and Saturday deposits have arrived; Sunday's arrives today.
    expect(dates.map((date) => arrivalOf(date).status)).toEqual(['PAID', 'PAID', 'PAID']);
  });

  it('fails a payout on the sandbox trigger and carries its amount into the next batch (409 the second time)', async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, ROUND, '10:00');
    await paidIntent(testApp, location, { amount: 2500 });
    const next = addDays(day, 1);
    await advanceToLocal(testApp, location, `${next} 04:30`);
    const [closed] = await batchesOf(testApp, location, { status: 'CLOSED' });
    const failed = await request(testApp.app)
      .post(`/v1/sandbox/payouts/${closed!.payoutId}/fail`)
      .set(testApp.as(location))
      .send({ failureCode: 'account_closed' })
      .expect(200);
    expect(failed.body).toMatchObject({ status: 'FAILED', failureCode: 'account_closed', amount: 2500 });
    const again = await request(testApp.app).post(`/v1/sandbox/payouts/${closed!.payoutId}/fail`).set(testApp.as(location)).send({}).expect(409);
    expect(again.body.messageKey).toBe('PAYOUT_STATUS_CONFLICT');
    await paidIntent(testApp, location, { amount: 100 });
    const current = await request(testApp.app).get('/v1/batches/current').set(testApp.as(location)).expect(200);
    expect(current.body.totals).toMatchObject({ net: 100, carriedIn: 2500 });
  });

  it('loses no line and counts none twice when captures and refunds race three closes of their day', async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, ROUND, '12:00');
    const paid: string[] = [];
    for (let index = 0; index < 6; index += 1) paid.push((await paidIntent(testApp, location, { amount: 1000 })).intent.id);
    const authorized: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      const checkout = await checkoutWith(testApp, location, { amount: 1250 });
      await confirm(testApp, location, checkout.intent.id, { paymentMethodId: checkout.cardId }).expect(200);
      authorized.push(checkout.intent.id);
    }
    // Three closers on a clock a day ahead (as replicas whose sweep sees the day over) race the day's last movements:
    // each movement lands in the day's batch or, committing after it closed, in the next one.
    const { offsetSeconds } = (await request(testApp.app).get('/v1/sandbox/clock').set(testApp.as(location)).expect(200)).body as { offsetSeconds: number };
    const settlement = new SettlementService({ currencies: ['USD'], sandbox: true });
    const closeAhead = () => inClock((offsetSeconds + 86_400) * 1000, () => settlement.closeDue(testApp.db.knex, location));
    const closes = await Promise.all([
      ...authorized.map((id) =>
        capture(testApp, location, id)
          .expect(200)
          .then(() => 0),
      ),
      ...paid.map((id) =>
        refund(testApp, location, id, { amount: 400 })
          .expect(201)
          .then(() => 0),
      ),
      closeAhead(),
      closeAhead(),
      closeAhead(),
    ]);
    expect(closes.reduce((sum, closed) => sum + closed, 0)).toBe(1);
    await advanceToLocal(testApp, location, `${addDays(day, 2)} 12:00`);

    const lines = (await testApp.db.knex('ledger_lines').where({ location_id: location })) as Array<{
      type: string;
      source_id: string;
      batch_id: string | null;
    }>;
    const sources = (type: string) =>
      lines
        .filter((line) => line.type === type)
        .map((line) => line.source_id as string)
        .sort();
    expect(sources('CAPTURE')).toEqual([...paid, ...authorized].sort());
    expect(sources('REFUND')).toHaveLength(paid.length);
    expect(new Set(sources('REFUND')).size).toBe(paid.length);
    expect(lines.filter((line) => line.batch_id === null)).toEqual([]);
    const batches = await batchesOf(testApp, location, { status: 'CLOSED' });
    for (const batch of batches) await expectBalanced(location, batch);
    const total = (field: keyof BatchBody['totals']) => batches.reduce((sum, batch) => sum + batch.totals[field], 0);
    expect([total('gross'), total('refunds'), total('payout')]).toEqual([6 * 1000 + 8 * 1250, -6 * 400, 6 * 600 + 8 * 1250]);
  });
});
