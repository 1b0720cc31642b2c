import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { addDays } from '../../../src/settlement/banking-days';
import { ASSIGN_CHUNK } from '../../../src/settlement/batch-close.repository';
import { capture, checkoutWith, confirm, refund } from '../../factories/checkout';
import { createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { advanceToLocal, batchesOf, linesOfBatch, settleWith, type BatchBody, type LineBody } from '../../factories/settlement';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Issue 55's reports: a batch's and a range's CSV file (RFC 4180, amounts
 * in major units, the closing line last so that the net column sums to
 * zero, formulas neutralised, an ETag once closed), the sales-day view and
 * a payout's lines. Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const FORMULA_REFERENCE = '=HYPERLINK("http://x.example","y")';

async function captureOf(location: string, amount: number, options: { tip?: number; externalReferenceId?: string } = {}): Promise<string> {
  const checkout = await checkoutWith(testApp, location, {
    amount,
    ...(options.externalReferenceId ? { externalReferenceId: options.externalReferenceId } : {}),
  });
  await confirm(testApp, location, checkout.intent.id, { paymentMethodId: checkout.cardId }).expect(200);
  await capture(testApp, location, checkout.intent.id, options.tip === undefined ? {} : { amountDetails: { tip: options.tip } }).expect(200);
  return checkout.intent.id;
}

const get = (location: string, path: string) => request(testApp.app).get(path).set(testApp.as(location));

/** A CSV answer as records keyed by the header row, read by an RFC 4180 parser that is not the service's. */
function recordsOf(text: string): Array<Record<string, string>> {
  expect(text.endsWith('\r\n')).toBe(true);
  return parse(text, { columns: true, record_delimiter: '\r\n' }) as Array<Record<string, string>>;
}

/** A decimal of major units in cents, exactly. */
const cents = (decimal: string) => {
  const [whole, fraction = ''] = decimal.replace('-', '').split('.');
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return decimal.startsWith('-') ? -value : value;
};

describe('a three-day week of reports', () => {
  const location = newLocation();
  let day: string;
  let paidDay: BatchBody;
  let carriedDay: BatchBody;
  let firstFile: { text: string; etag: string };
  let withFormula: string;

  beforeAll(async () => {
    day = await settleWith(testApp, location, { bankHolidays: [] }, '12:00');
    withFormula = await captureOf(location, 1250, { tip: 200, externalReferenceId: FORMULA_REFERENCE });
    await captureOf(location, 1000, { externalReferenceId: 'table, 12' });
    // The next day a part of the first is refunded: a negative day that carries its deficit forward.
    await advanceToLocal(testApp, location, `${addDays(day, 1)} 12:00`);
    await refund(testApp, location, withFormula, { amount: 500 }).expect(201);
    await advanceToLocal(testApp, location, `${addDays(day, 2)} 12:00`);
    // The deficit waits in the next day's open batch as its carry-in.
    const batches = await batchesOf(testApp, location, { status: 'CLOSED' });
    [carriedDay, paidDay] = batches as [BatchBody, BatchBody];
    expect([paidDay.businessDate, paidDay.status, carriedDay.businessDate, carriedDay.status]).toEqual([day, 'CLOSED', addDays(day, 1), 'CLOSED']);
    expect(carriedDay.totals.carriedOut).toBeLessThan(0);
  });

  it("streams a closed batch's lines as RFC 4180 CSV in major units, the payout last, its net column summing to zero", async () => {
    const answer = await get(location, `/v1/batches/${paidDay.id}/lines.csv`).expect(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="batch-${day}-USD.csv"`);
    expect(answer.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    firstFile = { text: answer.text, etag: answer.headers.etag as string };

    const records = recordsOf(answer.text);
    const lines = await linesOfBatch(testApp, location, paidDay.id);
    expect(records.map((record) => record.id)).toEqual(lines.map((line) => line.id));
    expect(records.map((record) => record.type)).toEqual(['CAPTURE', 'CAPTURE', 'PAYOUT']);
    expect(records.reduce((sum, record) => sum + cents(record.net as string), 0)).toBe(0);
    // JSON keeps minor units; the file writes the same money in major units.
    const first = lines[0] as LineBody;
    expect(records[0]).toMatchObject({
      batchBusinessDate: day,
      batchId: paidDay.id,
      gross: '14.50',
      tip: '2.00',
      fee: `0.${String(first.fee).padStart(2, '0')}`,
      net: (first.net / 100).toFixed(2),
      currency: 'USD',
      cardLastFour: '4242',
      payoutId: paidDay.payoutId,
    });
    expect(records[2]).toMatchObject({ type: 'PAYOUT', net: (-paidDay.totals.payout / 100).toFixed(2), paymentIntentId: '', externalReferenceId: '' });
  });

  it('neutralises a text cell a spreadsheet would run as a formula, and quotes a cell with a comma or a quote', async () => {
    const answer = await get(location, `/v1/batches/${paidDay.id}/lines.csv`).expect(200);
    const records = recordsOf(answer.text);
    expect(records[0]?.externalReferenceId).toBe(`'${FORMULA_REFERENCE}`);
    expect(records[1]?.externalReferenceId).toBe('table, 12');
    expect(answer.text).toContain(`"'=HYPERLINK(""http://x.example"",""y"")"`);
    expect(answer.text).toContain('"table, 12"');
  });

  it('answers a closed batch and its file byte-identical on every read, and 304 to a client that holds their ETag', async () => {
    const again = await get(location, `/v1/batches/${paidDay.id}/lines.csv`).expect(200);
    expect(again.text).toBe(firstFile.text);
    expect(again.headers.etag).toBe(firstFile.etag);
    const unchanged = await get(location, `/v1/batches/${paidDay.id}/lines.csv`).set('If-None-Match', firstFile.etag).expect(304);
    expect(unchanged.text).toBe('');

    const json = await get(location, `/v1/batches/${paidDay.id}`).expect(200);
    expect(json.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(json.headers.etag).not.toBe(firstFile.etag);
    await get(location, `/v1/batches/${paidDay.id}`)
      .set('If-None-Match', json.headers.etag as string)
      .expect(304);
    // Another batch's tag is not this one's.
    await get(location, `/v1/batches/${carriedDay.id}`)
      .set('If-None-Match', json.headers.etag as string)
      .expect(200);
  });

  it('gives an open batch its lines so far (the deficit it carries in, a capture), with no closing line and no ETag', async () => {
    await captureOf(location, 700);
    const current = await get(location, '/v1/batches/current').expect(200);
    expect(current.headers.etag).toBeUndefined();
    const file = await get(location, `/v1/batches/${current.body.id}/lines.csv`).expect(200);
    expect(file.headers.etag).toBeUndefined();
    expect(recordsOf(file.text).map((record) => [record.type, record.net])).toEqual([
      ['CARRY_FORWARD_IN', (carriedDay.totals.carriedOut / 100).toFixed(2)],
      ['CAPTURE', (current.body.totals.net / 100).toFixed(2)],
    ]);
  });

  it("files a range's closed batches oldest first, each ending with its closing line, the whole summing to zero; its ETag moves when a day of it closes", async () => {
    const range = `/v1/reports/ledger.csv?from=${day}&to=${addDays(day, 6)}`;
    const before = await get(location, range).expect(200);
    expect(before.headers['content-disposition']).toBe(`attachment; filename="ledger-${day}-to-${addDays(day, 6)}.csv"`);
    const records = recordsOf(before.text);
    expect(records.map((record) => [record.batchBusinessDate, record.type])).toEqual([
      [day, 'CAPTURE'],
      [day, 'CAPTURE'],
      [day, 'PAYOUT'],
      [addDays(day, 1), 'REFUND'],
      [addDays(day, 1), 'CARRY_FORWARD_OUT'],
    ]);
    expect(records.reduce((sum, record) => sum + cents(record.net as string), 0)).toBe(0);
    await get(location, range)
      .set('If-None-Match', before.headers.etag as string)
      .expect(304);

    // The open day (the 7.00 capture) closes: the range's file takes it in, under a new tag; the closed days' rows are as they were.
    await advanceToLocal(testApp, location, `${addDays(day, 3)} 12:00`);
    const after = await get(location, range)
      .set('If-None-Match', before.headers.etag as string)
      .expect(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.text.startsWith(before.text)).toBe(true);
    const added = recordsOf(after.text).slice(records.length);
    expect(added.map((record) => [record.batchBusinessDate, record.type])).toEqual([
      [addDays(day, 2), 'CARRY_FORWARD_IN'],
      [addDays(day, 2), 'CAPTURE'],
      [addDays(day, 2), added.at(-1)?.type],
    ]);
    expect(recordsOf(after.text).reduce((sum, record) => sum + cents(record.net as string), 0)).toBe(0);
    expect((await get(location, `/v1/batches/${paidDay.id}/lines.csv`).expect(200)).text).toBe(firstFile.text);
  });

  it('refuses a range that runs backwards or past 31 days, naming the field', async () => {
    const backwards = await get(location, `/v1/reports/ledger.csv?from=${addDays(day, 1)}&to=${day}`).expect(400);
    expect(backwards.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'from' });
    const tooLong = await get(location, `/v1/reports/ledger.csv?from=${day}&to=${addDays(day, 31)}`).expect(400);
    expect(tooLong.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'to' });
    const badCurrency = await get(location, `/v1/reports/ledger.csv?currency=usd`).expect(400);
    expect(badCurrency.body).toMatchObject({ fieldName: 'currency' });
  });

  it('shows a sales day: its captures and the later refund against them, with the day and batch the refund landed in', async () => {
    const summary = await get(location, `/v1/reports/sales-days/${day}`).expect(200);
    const page = await get(location, `/v1/reports/sales-days/${day}/lines`).expect(200);
    expect(page.body).toMatchObject({ results: 3, hasMore: false });
    const lines = page.body.lines as LineBody[];
    expect(lines.map((line) => [line.type, line.businessDate, line.batchId, line.payoutId, line.originalBusinessDate])).toEqual([
      ['CAPTURE', day, paidDay.id, paidDay.payoutId, day],
      ['CAPTURE', day, paidDay.id, paidDay.payoutId, day],
      ['REFUND', addDays(day, 1), carriedDay.id, null, day],
    ]);
    expect(summary.body).toEqual({
      businessDate: day,
      currency: 'USD',
      counts: { captures: 2, refunds: 1, refundFailures: 0, disputes: 0, lines: 3 },
      totals: {
        gross: 2450,
        tips: 200,
        refunds: -500,
        refundFailures: 0,
        disputes: 0,
        fees: lines.reduce((sum, line) => sum + line.fee, 0),
        net: lines.reduce((sum, line) => sum + line.net, 0),
      },
    });

    const first = await get(location, `/v1/reports/sales-days/${day}/lines?limit=2`).expect(200);
    expect(first.body).toMatchObject({ results: 2, hasMore: true });
    const rest = await get(location, `/v1/reports/sales-days/${day}/lines?limit=2&startingAfter=${first.body.lines[1].id}`).expect(200);
    expect(rest.body).toMatchObject({ results: 1, hasMore: false });
    expect(rest.body.lines[0].id).toBe(lines[2]?.id);

    const stranger = await get(location, `/v1/reports/sales-days/${addDays(day, 1)}/lines?startingAfter=${lines[0]?.id}`).expect(400);
    expect(stranger.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'startingAfter' });
    const quiet = await get(location, `/v1/reports/sales-days/${addDays(day, 1)}`).expect(200);
    expect(quiet.body).toMatchObject({ counts: { captures: 0, lines: 0 }, totals: { gross: 0, net: 0 } });
    const otherCurrency = await get(location, `/v1/reports/sales-days/${day}?currency=EUR`).expect(200);
    expect(otherCurrency.body).toMatchObject({ currency: 'EUR', counts: { lines: 0 } });
    const notADate = await get(location, '/v1/reports/sales-days/2026-02-30').expect(400);
    expect(notADate.body).toMatchObject({ fieldName: 'businessDate' });
  });

  it("lists the lines a payout carried: its batch's, the payout last", async () => {
    const lines = await get(location, `/v1/payouts/${paidDay.payoutId}/lines`).expect(200);
    expect((lines.body.lines as LineBody[]).map((line) => line.id)).toEqual((await linesOfBatch(testApp, location, paidDay.id)).map((line) => line.id));
    expect(lines.body.lines.at(-1)).toMatchObject({ type: 'PAYOUT', sourceId: paidDay.payoutId, net: -paidDay.totals.payout });
    const missing = await get(location, '/v1/payouts/019ac9a4-0f1e-7a2b-8c3d-000000000000/lines').expect(404);
    expect(missing.body.messageKey).toBe('PAYOUT_NOT_FOUND');
    // Another location's payout is not found here.
    await get(newLocation(), `/v1/payouts/${paidDay.payoutId}/lines`).expect(404);
    await get(newLocation(), `/v1/batches/${paidDay.id}/lines.csv`).expect(404);
  });
});

describe('an erasure', () => {
  it("leaves the lines' amounts and dates as financial records, and nothing of the person in lines, batches, files, sales days or their events", async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, { bankHolidays: [] }, '12:00');
    const person = { externalReferenceId: `crm-${randomUUID()}`, description: 'pat.erased@example.com' };
    const customer = await createCustomer(testApp, location, person);
    const card = await saveCard(testApp, location, customer.id);
    const intent = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(location))
      .send({ amount: 1250, currency: 'USD', externalReferenceId: 'order-erased', customerId: customer.id, email: person.description })
      .expect(201);
    await confirm(testApp, location, intent.body.id, { paymentMethodId: card.id }).expect(200);
    await capture(testApp, location, intent.body.id).expect(200);
    await refund(testApp, location, intent.body.id, { amount: 250 }).expect(201);
    await advanceToLocal(testApp, location, `${addDays(day, 1)} 12:00`);
    const [batch] = await batchesOf(testApp, location, { status: 'CLOSED' });
    const before = await get(location, `/v1/batches/${batch?.id}/lines.csv`).expect(200);

    await request(testApp.app).delete(`/v1/customers/${customer.id}`).set(testApp.as(location)).expect(200);

    // The money stays as it was: the same lines, the same file byte for byte, the same ETag.
    const after = await get(location, `/v1/batches/${batch?.id}/lines.csv`).expect(200);
    expect(after.text).toBe(before.text);
    expect(after.headers.etag).toBe(before.headers.etag);
    const trail = (await get(location, `/v1/payment-intents/${intent.body.id}/ledger`).expect(200)).body.lines as LineBody[];
    expect(trail.map((line) => [line.type, line.gross, line.businessDate])).toEqual([
      ['CAPTURE', 1250, day],
      ['REFUND', -250, day],
    ]);
    const reads = [
      after.text,
      JSON.stringify(trail),
      JSON.stringify((await get(location, `/v1/batches/${batch?.id}`).expect(200)).body),
      JSON.stringify((await get(location, `/v1/batches/${batch?.id}/lines`).expect(200)).body),
      JSON.stringify((await get(location, `/v1/reports/sales-days/${day}/lines`).expect(200)).body),
      (await get(location, `/v1/reports/ledger.csv?from=${day}`).expect(200)).text,
      JSON.stringify((await get(location, `/v1/payouts/${batch?.payoutId}/lines`).expect(200)).body),
    ];
    const events = (await get(location, '/v1/events?limit=100').expect(200)).body.events as Array<{ type: string }>;
    const settlementEvents = events.filter((event) => /^(batch|payout)\./.test(event.type));
    expect(settlementEvents.map((event) => event.type).sort()).toEqual(['batch.closed', 'payout.created']);
    for (const text of [...reads, JSON.stringify(settlementEvents)]) {
      expect(text).not.toContain(person.description);
      expect(text).not.toContain(person.externalReferenceId);
      expect(text).not.toContain(customer.id);
    }
  });
});

describe('a long day', () => {
  it('closes a day of more waiting lines than one statement of the close assigns, each line once, its file summing to zero', async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, { fees: { percentBps: 0, fixed: 0 } }, '12:00');
    await captureOf(location, 1000);
    const seeded = 2 * ASSIGN_CHUNK + 7;
    await testApp.db.knex.raw(
      `insert into ledger_lines (location_id, id, type, source_type, source_id, payment_intent_id, occurred_at, business_date, original_business_date,
                                 currency, gross, tip, fee, net)
       select ?, line_id, 'CAPTURE', 'payment_intent', line_id, line_id, now(), ?::date, ?::date, 'USD', 100, 0, 0, 100
         from (select ('00000000-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid as line_id from generate_series(1, ?) as n) as lines`,
      [location, day, day, seeded],
    );
    await advanceToLocal(testApp, location, `${addDays(day, 1)} 12:00`);
    const [batch] = await batchesOf(testApp, location, { status: 'CLOSED' });
    expect(batch).toMatchObject({
      businessDate: day,
      counts: { captures: seeded + 1, lines: seeded + 2 },
      totals: { gross: seeded * 100 + 1000, net: seeded * 100 + 1000, payout: seeded * 100 + 1000 },
    });
    const records = recordsOf((await get(location, `/v1/batches/${batch?.id}/lines.csv`).expect(200)).text);
    expect(records).toHaveLength(seeded + 2);
    expect(new Set(records.map((record) => record.id)).size).toBe(seeded + 2);
    expect(records.reduce((sum, record) => sum + cents(record.net as string), 0)).toBe(0);
    await get(location, '/v1/batches/current').expect(404);
  });

  it('streams a batch of thousands of lines page by page, each line once, the payout last whatever its id', async () => {
    const location = newLocation();
    const day = await settleWith(testApp, location, { bankHolidays: [] }, '12:00');
    await captureOf(location, 1000);
    await advanceToLocal(testApp, location, `${addDays(day, 1)} 12:00`);
    const batch = (await batchesOf(testApp, location))[0] as BatchBody;
    // 2,100 more lines in the closed batch, with ids after its payout line's: more than two of the file's pages.
    await testApp.db.knex.raw(
      `insert into ledger_lines (location_id, id, batch_id, type, source_type, source_id, payment_intent_id, occurred_at, business_date, original_business_date,
                                 currency, gross, tip, fee, net)
       select ?, line_id, ?::uuid, 'CAPTURE', 'payment_intent', line_id, line_id, now(), ?::date, ?::date, 'USD', 100, 0, 0, 100
         from (select ('ffffffff-ffff-7fff-bfff-' || lpad(to_hex(n), 12, '0'))::uuid as line_id from generate_series(1, 2100) as n) as lines`,
      [location, batch.id, day, day],
    );
    const records = recordsOf((await get(location, `/v1/batches/${batch.id}/lines.csv`).expect(200)).text);
    expect(records).toHaveLength(2102);
    expect(new Set(records.map((record) => record.id)).size).toBe(2102);
    expect(records.at(-1)?.type).toBe('PAYOUT');
    expect(records.slice(0, -1).every((record) => record.type === 'CAPTURE')).toBe(true);
    // The JSON list pages in the same order, the payout last; after it, nothing.
    const listed = await linesOfBatch(testApp, location, batch.id);
    expect(listed.map((line) => line.id)).toEqual(records.map((record) => record.id));
    const pastPayout = await get(location, `/v1/batches/${batch.id}/lines?startingAfter=${listed.at(-1)?.id}`).expect(200);
    expect(pastPayout.body).toEqual({ results: 0, lines: [], hasMore: false });
  });
});
