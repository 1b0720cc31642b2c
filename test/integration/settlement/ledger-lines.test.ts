import request from 'supertest';
import { REFUND_FAILS_LAST_FOUR } from '../../../src/payment-processor/sandbox-cards';
import { capture, checkoutWith, confirm, paidIntent, refund } from '../../factories/checkout';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Issue 55, the ledger: every money movement writes exactly one line in its
 * own statement (a capture with its tip and fee, a refund when made with its
 * share of the fee given back, a failed refund's reversal), dated by the
 * location's business day. Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

interface LineRow {
  type: string;
  source_type: string;
  payment_intent_id: string;
  refund_id: string | null;
  business_date: string;
  original_business_date: string | null;
  gross: string;
  tip: string;
  fee: string;
  net: string;
  card_brand: string | null;
  card_last_four: string | null;
  batch_id: string | null;
}

async function linesOf(location: string): Promise<Array<Omit<LineRow, 'gross' | 'tip' | 'fee' | 'net'> & Record<'gross' | 'tip' | 'fee' | 'net', number>>> {
  const rows = (await testApp.db
    .knex('ledger_lines')
    .select('type', 'source_type', 'payment_intent_id', 'refund_id', 'card_brand', 'card_last_four', 'batch_id', 'gross', 'tip', 'fee', 'net')
    .select(testApp.db.knex.raw('business_date::text as business_date, original_business_date::text as original_business_date'))
    .where({ location_id: location })
    .orderBy('id')) as LineRow[];
  return rows.map((row) => ({ ...row, gross: Number(row.gross), tip: Number(row.tip), fee: Number(row.fee), net: Number(row.net) }));
}

const settingsOf = async (location: string) => (await request(testApp.app).get('/v1/location-settings').set(testApp.as(location)).expect(200)).body;

describe('the ledger line of each money movement', () => {
  it('writes one CAPTURE line: gross with its tip, the default fee (2.9 % + 30), net, the card, the business date now', async () => {
    const location = newLocation();
    const checkout = await checkoutWith(testApp, location, { amount: 1250 });
    await confirm(testApp, location, checkout.intent.id, { paymentMethodId: checkout.cardId }).expect(200);
    await capture(testApp, location, checkout.intent.id, { amountDetails: { tip: 200 } }).expect(200);
    const { currentBusinessDate } = await settingsOf(location);
    // 1,450 captured (1,250 and the 200 tip): 2.9 % is 42.05, rounded to 42, and 30 fixed.
    expect(await linesOf(location)).toEqual([
      {
        type: 'CAPTURE',
        source_type: 'payment_intent',
        payment_intent_id: checkout.intent.id,
        refund_id: null,
        business_date: currentBusinessDate,
        original_business_date: currentBusinessDate,
        gross: 1450,
        tip: 200,
        fee: 72,
        net: 1378,
        card_brand: 'VISA',
        card_last_four: '4242',
        batch_id: null,
      },
    ]);
  });

  it('writes nothing for an authorization, a decline or a void: only captured money moves', async () => {
    const location = newLocation();
    const checkout = await checkoutWith(testApp, location);
    await confirm(testApp, location, checkout.intent.id, { paymentMethodId: checkout.cardId }).expect(200);
    await request(testApp.app).post(`/v1/payment-intents/${checkout.intent.id}/cancel`).set(testApp.as(location)).send({}).expect(200);
    expect(await linesOf(location)).toEqual([]);
  });

  it("gives back the capture's fee in proportion with each refund, all of it once all is refunded, never a cent more", async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { amount: 1250 });
    await refund(testApp, location, intent.id, { amount: 500 }).expect(201);
    await refund(testApp, location, intent.id, { amount: 333 }).expect(201);
    await refund(testApp, location, intent.id, {}).expect(201);
    const lines = await linesOf(location);
    // The capture's fee: 36.25 rounded to 36, and 30: 66.
    expect(lines.map((line) => [line.type, line.gross, line.fee, line.net])).toEqual([
      ['CAPTURE', 1250, 66, 1184],
      ['REFUND', -500, -26, -474],
      ['REFUND', -333, -18, -315],
      ['REFUND', -417, -22, -395],
    ]);
    expect(lines.reduce((sum, line) => sum + line.fee, 0)).toBe(0);
    expect(lines.reduce((sum, line) => sum + line.net, 0)).toBe(0);
    expect(new Set(lines.map((line) => line.original_business_date)).size).toBe(1);
  });

  it('reverses a refund that fails with a REFUND_FAILURE line: the two sum to zero', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location, { lastFour: REFUND_FAILS_LAST_FOUR, amount: 1000 });
    const failed = await refund(testApp, location, intent.id, { amount: 400 }).expect(201);
    expect(failed.body.status).toBe('FAILED');
    const lines = await linesOf(location);
    expect(lines.map((line) => [line.type, line.refund_id, line.gross, line.fee, line.net])).toEqual([
      ['CAPTURE', null, 1000, 59, 941],
      ['REFUND', failed.body.id, -400, -24, -376],
      ['REFUND_FAILURE', failed.body.id, 400, 24, 376],
    ]);
  });

  it('keeps one line per movement as a database fact: a second line for the same capture is refused', async () => {
    const location = newLocation();
    const { intent } = await paidIntent(testApp, location);
    const [line] = (await testApp.db.knex('ledger_lines').where({ location_id: location })) as Array<Record<string, unknown>>;
    await expect(testApp.db.knex('ledger_lines').insert({ ...line, id: '019ab3c6-2b3c-7d4e-8f5a-6b7c8d9e0f1a' })).rejects.toThrow(/unique|duplicate/i);
    expect((await linesOf(location)).filter((row) => row.payment_intent_id === intent.id)).toHaveLength(1);
  });

  it("dates a capture by the location's settings in force: with fees set to 0 a capture's net is its gross", async () => {
    const location = newLocation();
    await request(testApp.app)
      .patch('/v1/location-settings')
      .set(testApp.as(location))
      .send({ fees: { percentBps: 0, fixed: 0 } })
      .expect(200);
    // In force from the next business day: today's capture still pays today's fee.
    await paidIntent(testApp, location, { amount: 1000 });
    expect((await linesOf(location)).map((line) => line.fee)).toEqual([59]);
  });

  it('refuses a time zone or a closeout hour it cannot keep (400 naming the field), changing nothing and recording nothing', async () => {
    const location = newLocation();
    const before = await settingsOf(location);
    for (const [body, fieldName] of [
      [{ timeZone: 'Mars/Olympus_Mons' }, 'timeZone'],
      [{ timeZone: '+05:00' }, 'timeZone'],
      [{ closeoutHour: 13 }, 'closeoutHour'],
      [{ bankHolidays: ['2026-02-30'] }, 'bankHolidays.0'],
    ] as const) {
      const refused = await request(testApp.app).patch('/v1/location-settings').set(testApp.as(location)).send(body).expect(400);
      expect(refused.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName });
    }
    expect(await settingsOf(location)).toEqual(before);
    expect(await testApp.db.knex('events').where({ location_id: location })).toEqual([]);
  });

  it('records the change as location_settings.updated, its previous the settings in force when it was made', async () => {
    const location = newLocation();
    await request(testApp.app).patch('/v1/location-settings').set(testApp.as(location)).send({ closeoutHour: 3 }).expect(200);
    const changed = await request(testApp.app)
      .patch('/v1/location-settings')
      .set(testApp.as(location))
      .send({ fees: { fixed: 0 } })
      .expect(200);
    expect(changed.body.closeoutHour).toBe(4);
    expect(changed.body.scheduled).toMatchObject({ closeoutHour: 3, fees: { fixed: 0, percentBps: 290 } });
    const events = (await testApp.db.knex('events').where({ location_id: location }).orderBy('id')) as Array<{
      type: string;
      data: { previous: { closeoutHour: number; fees: { fixed: number } } };
    }>;
    expect(events.map((event) => [event.type, event.data.previous.closeoutHour, event.data.previous.fees.fixed])).toEqual([
      ['location_settings.updated', 4, 30],
      ['location_settings.updated', 4, 30],
    ]);
  });
});
