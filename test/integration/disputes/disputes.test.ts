import request from 'supertest';
import type { Dispute } from '../../../src/disputes/disputes.schemas';
import { LOCATION_SETTINGS_DEFAULTS } from '../../../src/settlement/location-settings-defaults';
import { SANDBOX_DISPUTE_AFTER_SECONDS } from '../../../src/payment-processor/sandbox-cards';
import { paidIntent, refund } from '../../factories/checkout';
import { newLocation } from '../../factories/locations';
import { createMandate } from '../../factories/mandates';
import { linesOfBatch, settleWith, type BatchBody, type LineBody } from '../../factories/settlement';
import { GatedProcessor } from '../../support/gated-processor';
import { startTestApp, type TestApp } from '../../support/test-app';
import { SandboxProcessor } from '../../../src/payment-processor/sandbox-processor';

/**
 * Issue 56: disputes on the location's clock, from opening to decision,
 * with their money held on the intent and written to the ledger. Runs on
 * PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const DAY = 24 * 60 * 60;
const { disputes: RULES, fees: FEES } = LOCATION_SETTINGS_DEFAULTS;

const as = (location: string) => testApp.as(location);
const advance = (location: string, seconds: number) => request(testApp.app).post('/v1/sandbox/clock/advance').set(as(location)).send({ seconds }).expect(200);
const openDispute = (location: string, intentId: string, body: object) =>
  request(testApp.app).post(`/v1/sandbox/payment-intents/${intentId}/disputes`).set(as(location)).send(body);
const getDispute = async (location: string, id: string) => (await request(testApp.app).get(`/v1/disputes/${id}`).set(as(location)).expect(200)).body as Dispute;
const evidence = (location: string, id: string, body: object) => request(testApp.app).post(`/v1/disputes/${id}/evidence`).set(as(location)).send(body);
const intentOf = async (location: string, id: string) =>
  (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(as(location)).expect(200)).body as Record<string, unknown>;

/** The dispute lines of an intent, as its ledger trail lists them. */
async function disputeLinesOf(location: string, intentId: string): Promise<LineBody[]> {
  const trail = await request(testApp.app).get(`/v1/payment-intents/${intentId}/ledger`).set(as(location)).expect(200);
  return (trail.body.lines as LineBody[]).filter((line) => line.sourceType === 'dispute');
}

async function disputeEvents(location: string, disputeId: string): Promise<Array<{ type: string; data: { object: Dispute; previous: unknown } }>> {
  return (await testApp.db
    .knex('events')
    .select('type', 'data')
    .where({ location_id: location })
    .whereRaw("data->'object'->>'id' = ?", [disputeId])
    .orderBy('id')) as Array<{ type: string; data: { object: Dispute; previous: unknown } }>;
}

describe("the sandbox's dispute card 2685", () => {
  const location = newLocation();
  let intentId: string;
  let dispute: Dispute;

  beforeAll(async () => {
    intentId = (await paidIntent(testApp, location, { lastFour: '2685', amount: 3000 })).intent.id;
    await advance(location, SANDBOX_DISPUTE_AFTER_SECONDS + 1);
    const listed = await request(testApp.app).get(`/v1/payment-intents/${intentId}/disputes`).set(as(location)).expect(200);
    expect(listed.body.results).toBe(1);
    dispute = listed.body.disputes[0] as Dispute;
  });

  it('opens a chargeback for a product not received, on the clock, with evidence due by the VISA window', () => {
    expect(dispute).toMatchObject({ paymentIntentId: intentId, amount: 3000, stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', reason: 'PRODUCT_NOT_RECEIVED' });
    expect(dispute.card).toEqual({ brand: 'VISA', lastFour: '2685' });
    expect(Date.parse(dispute.evidenceDueBy) - Date.parse(dispute.openedAt)).toBe(RULES.responseDays.VISA * DAY * 1000);
    expect(dispute.fundsWithdrawnAt).toBe(dispute.openedAt);
  });

  it('withdraws the amount and the dispute fee as two ledger lines, and holds the amount on the intent', async () => {
    const lines = await disputeLinesOf(location, intentId);
    expect(lines.map((line) => [line.type, line.gross, line.fee, line.net])).toEqual([
      ['DISPUTE_WITHDRAWAL', -3000, 0, -3000],
      ['DISPUTE_FEE', 0, FEES.disputeFee, -FEES.disputeFee],
    ]);
    expect(await intentOf(location, intentId)).toMatchObject({ amountDisputed: 3000, refundableAmount: 0, disputeStatus: 'NEEDS_RESPONSE' });
  });

  it('blocks a refund with 409 REFUND_BLOCKED_BY_DISPUTE naming what is left, changing nothing', async () => {
    const blocked = await refund(testApp, location, intentId, { amount: 100 }).expect(409);
    expect(blocked.body).toMatchObject({ code: 3020, fieldName: 'amount' });
    expect(blocked.body.message).toContain('0 (minor units) may still be refunded');
    expect(await intentOf(location, intentId)).toMatchObject({ amountRefunded: 0, amountDisputed: 3000 });
  });

  it('records dispute.created and dispute.funds_withdrawn', async () => {
    expect((await disputeEvents(location, dispute.id)).map((event) => event.type)).toEqual(['dispute.created', 'dispute.funds_withdrawn']);
  });
});

describe('deadlines by card brand', () => {
  const location = newLocation();
  let visa: Dispute;
  let mastercard: Dispute;

  beforeAll(async () => {
    const visaIntent = (await paidIntent(testApp, location, { amount: 2000 })).intent.id;
    const mastercardIntent = (await paidIntent(testApp, location, { amount: 2000, cardType: 'mastercard', lastFour: '4444' })).intent.id;
    visa = (await openDispute(location, visaIntent, { stage: 'CHARGEBACK', reason: 'FRAUDULENT' }).expect(201)).body as Dispute;
    mastercard = (await openDispute(location, mastercardIntent, { stage: 'CHARGEBACK', reason: 'FRAUDULENT' }).expect(201)).body as Dispute;
    await advance(location, 19 * DAY);
  });

  it('accepts a VISA chargeback 18 days on, closed by its deadline at the deadline, with dispute.closed', async () => {
    const after = await getDispute(location, visa.id);
    expect(after).toMatchObject({ status: 'ACCEPTED', closedBy: 'DEADLINE', closedAt: visa.evidenceDueBy });
    const events = await disputeEvents(location, visa.id);
    expect(events.at(-1)).toMatchObject({ type: 'dispute.closed', data: { previous: { status: 'NEEDS_RESPONSE' } } });
  });

  it('leaves a MASTERCARD chargeback opened at the same time waiting for its 40 days', async () => {
    const after = await getDispute(location, mastercard.id);
    expect(after.status).toBe('NEEDS_RESPONSE');
    expect(Date.parse(after.evidenceDueBy) - Date.parse(after.openedAt)).toBe(RULES.responseDays.MASTERCARD * DAY * 1000);
  });

  it('refuses evidence once it is closed by its deadline (409 naming its state), and answers an accept as it stands', async () => {
    const closed = await evidence(location, visa.id, { explanation: 'late', submit: true }).expect(409);
    expect(closed.body.code).toBe(3016);
    expect(closed.body.message).toContain('CHARGEBACK/ACCEPTED');
    const accepted = await request(testApp.app).post(`/v1/disputes/${visa.id}/accept`).set(as(location)).expect(200);
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED', closedBy: 'DEADLINE' });
    expect((await disputeEvents(location, visa.id)).filter((event) => event.type === 'dispute.closed')).toHaveLength(1);
  });

  it('refuses evidence past its deadline with 409 DISPUTE_EVIDENCE_DUE_PASSED while the rule has not run yet', async () => {
    const intentId = (await paidIntent(testApp, location, { amount: 900 })).intent.id;
    const dispute = (await openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'GENERAL' }).expect(201)).body as Dispute;
    // The deadline passed a second ago; the clock's rules have not run for it (as between two sweeps).
    await testApp.db
      .knex('disputes')
      .where({ location_id: location, id: dispute.id })
      .update({ evidence_due_by: new Date(Date.parse(dispute.openedAt) - 1000) });
    const late = await evidence(location, dispute.id, { explanation: 'late', submit: true }).expect(409);
    expect(late.body.code).toBe(3018);
    expect((await getDispute(location, dispute.id)).evidence.explanation).toBeNull();
  });
});

describe('a VISA chargeback won with evidence', () => {
  const location = newLocation();
  let intentId: string;
  let dispute: Dispute;
  let submitted: Dispute;

  beforeAll(async () => {
    await settleWith(testApp, location, { bankHolidays: [] }, '12:00');
    intentId = (await paidIntent(testApp, location, { amount: 4000 })).intent.id;
    dispute = (await openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'GENERAL', amount: 2500 }).expect(201)).body as Dispute;
    submitted = (await evidence(location, dispute.id, { explanation: 'winning_evidence', receiptReference: 'check-7', submit: true }).expect(200))
      .body as Dispute;
  });

  it('moves to UNDER_REVIEW with the decision due by the VISA decision window', () => {
    expect(submitted).toMatchObject({ status: 'UNDER_REVIEW', evidence: { explanation: 'winning_evidence', receiptReference: 'check-7', submitted: true } });
    expect(Date.parse(submitted.decisionExpectedBy as string) - Date.parse(submitted.submittedAt as string)).toBe(RULES.decisionDays.VISA * DAY * 1000);
  });

  it('submits once: a second submit, or a change after, is 409 DISPUTE_EVIDENCE_ALREADY_SUBMITTED', async () => {
    expect((await evidence(location, dispute.id, { submit: true }).expect(409)).body.code).toBe(3017);
    expect((await evidence(location, dispute.id, { explanation: 'more' }).expect(409)).body.code).toBe(3017);
    expect((await getDispute(location, dispute.id)).evidence.explanation).toBe('winning_evidence');
  });

  it('only a part is held: the rest can still be refunded, and no more', async () => {
    expect(await intentOf(location, intentId)).toMatchObject({ amountDisputed: 2500, refundableAmount: 1500 });
    expect((await refund(testApp, location, intentId, { amount: 1501 }).expect(409)).body.code).toBe(3020);
  });

  it('is WON at its decision, 45 days on: the amount reinstated in a later batch, the hold given back', async () => {
    await advance(location, (RULES.decisionDays.VISA + 1) * DAY);
    const won = await getDispute(location, dispute.id);
    expect(won).toMatchObject({ status: 'WON', closedBy: 'ISSUER', closedAt: submitted.decisionExpectedBy });
    expect(won.fundsReinstatedAt).not.toBeNull();
    const lines = await disputeLinesOf(location, intentId);
    expect(lines.map((line) => [line.type, line.gross])).toEqual([
      ['DISPUTE_WITHDRAWAL', -2500],
      ['DISPUTE_FEE', 0],
      ['DISPUTE_REINSTATEMENT', 2500],
    ]);
    const [withdrawal, , reinstatement] = lines as [LineBody, LineBody, LineBody];
    expect(reinstatement.businessDate > withdrawal.businessDate).toBe(true);
    expect(reinstatement.originalBusinessDate).toBe(withdrawal.originalBusinessDate);
    expect(await intentOf(location, intentId)).toMatchObject({ amountDisputed: 0, refundableAmount: 4000, disputeStatus: 'WON' });
    const types = (await disputeEvents(location, dispute.id)).map((event) => event.type);
    expect(types).toEqual(['dispute.created', 'dispute.funds_withdrawn', 'dispute.updated', 'dispute.closed', 'dispute.funds_reinstated']);
  });

  it("lands each line in its business day's closed batch, counted in the batch's disputes and fees", async () => {
    await advance(location, DAY);
    const [withdrawal, , reinstatement] = (await disputeLinesOf(location, intentId)) as [LineBody, LineBody, LineBody];
    for (const [line, disputes, fees] of [
      [withdrawal, -2500, FEES.disputeFee],
      [reinstatement, 2500, 0],
    ] as const) {
      expect(line.batchId).not.toBeNull();
      const batch = (await request(testApp.app).get(`/v1/batches/${line.batchId}`).set(as(location)).expect(200)).body as BatchBody;
      expect(batch).toMatchObject({ status: 'CLOSED', businessDate: line.businessDate, counts: { disputes: disputes < 0 ? 1 : 0 }, totals: { disputes } });
      expect(batch.totals.fees).toBeGreaterThanOrEqual(fees);
      expect(batch.totals.net).toBe(batch.totals.payout + batch.totals.carriedOut - batch.totals.carriedIn);
      const lines = await linesOfBatch(testApp, location, batch.id);
      expect(lines.reduce((sum, each) => sum + each.net, 0)).toBe(0);
      // And in its file, in major units, with the payout that carried it.
      const file = await request(testApp.app).get(`/v1/batches/${batch.id}/lines.csv`).set(as(location)).expect(200);
      const row = file.text.split('\r\n').find((text) => text.includes(`,${line.type},`));
      expect(row).toContain(`,USD,${(line.gross / 100).toFixed(2)},`);
      expect(line.payoutId).toBe(batch.payoutId);
    }
  });
});

describe('an inquiry (card 1976)', () => {
  it('moves no money, does not block refunds, and a full refund closes it, closed by REFUND', async () => {
    const location = newLocation();
    const intentId = (await paidIntent(testApp, location, { lastFour: '1976', amount: 1800 })).intent.id;
    await advance(location, SANDBOX_DISPUTE_AFTER_SECONDS + 1);
    const [inquiry] = (await request(testApp.app).get('/v1/disputes').query({ stage: 'INQUIRY' }).set(as(location)).expect(200)).body.disputes as Dispute[];
    expect(inquiry).toMatchObject({ paymentIntentId: intentId, stage: 'INQUIRY', status: 'NEEDS_RESPONSE', amount: 1800, fundsWithdrawnAt: null });
    expect(Date.parse(inquiry!.evidenceDueBy) - Date.parse(inquiry!.openedAt)).toBe(RULES.responseDays.inquiry * DAY * 1000);
    expect(await intentOf(location, intentId)).toMatchObject({ amountDisputed: 0, refundableAmount: 1800, disputeStatus: 'NEEDS_RESPONSE' });
    await refund(testApp, location, intentId, { amount: 800 }).expect(201);
    expect((await getDispute(location, inquiry!.id)).status).toBe('NEEDS_RESPONSE');
    await refund(testApp, location, intentId).expect(201);
    expect(await getDispute(location, inquiry!.id)).toMatchObject({ stage: 'INQUIRY', status: 'CLOSED', closedBy: 'REFUND' });
    expect(await disputeLinesOf(location, intentId)).toEqual([]);
    expect((await openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'GENERAL' }).expect(409)).body.code).toBe(3019);
  });

  it('becomes a chargeback when its deadline passes unanswered, withdrawing then', async () => {
    const location = newLocation();
    const intentId = (await paidIntent(testApp, location, { amount: 1200 })).intent.id;
    const inquiry = (await openDispute(location, intentId, { stage: 'INQUIRY', reason: 'UNRECOGNIZED' }).expect(201)).body as Dispute;
    await advance(location, (RULES.responseDays.inquiry + 1) * DAY);
    const chargeback = await getDispute(location, inquiry.id);
    expect(chargeback).toMatchObject({ stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', openedAt: inquiry.evidenceDueBy });
    expect(Date.parse(chargeback.evidenceDueBy) - Date.parse(inquiry.evidenceDueBy)).toBe(RULES.responseDays.VISA * DAY * 1000);
    expect((await disputeLinesOf(location, intentId)).map((line) => line.type)).toEqual(['DISPUTE_WITHDRAWAL', 'DISPUTE_FEE']);
    const updated = (await disputeEvents(location, inquiry.id)).find((event) => event.type === 'dispute.updated');
    expect(updated?.data.previous).toEqual({ status: 'NEEDS_RESPONSE', stage: 'INQUIRY' });
  });

  it('escalates by the helper, and a lost inquiry decision becomes a chargeback', async () => {
    const location = newLocation();
    const first = (await paidIntent(testApp, location, { amount: 900 })).intent.id;
    const inquiry = (await openDispute(location, first, { stage: 'INQUIRY', reason: 'GENERAL' }).expect(201)).body as Dispute;
    const escalated = await request(testApp.app).post(`/v1/sandbox/disputes/${inquiry.id}/escalate`).set(as(location)).expect(200);
    expect(escalated.body).toMatchObject({ stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', amount: 900 });
    expect((await request(testApp.app).post(`/v1/sandbox/disputes/${inquiry.id}/escalate`).set(as(location)).expect(409)).body.code).toBe(3016);

    const second = (await paidIntent(testApp, location, { amount: 700 })).intent.id;
    const other = (await openDispute(location, second, { stage: 'INQUIRY', reason: 'GENERAL' }).expect(201)).body as Dispute;
    await evidence(location, other.id, { explanation: 'losing_evidence', submit: true }).expect(200);
    const decided = await request(testApp.app).post(`/v1/sandbox/disputes/${other.id}/decide`).set(as(location)).send({ outcome: 'LOST' }).expect(200);
    expect(decided.body).toMatchObject({ stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', submittedAt: null, evidence: { submitted: false } });
  });
});

describe('accepting', () => {
  it('accepts a chargeback once (no second event), and refuses an inquiry with 409 naming its state', async () => {
    const location = newLocation();
    const intentId = (await paidIntent(testApp, location)).intent.id;
    const chargeback = (await openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'DUPLICATE', amount: 500 }).expect(201)).body as Dispute;
    const accepted = await request(testApp.app).post(`/v1/disputes/${chargeback.id}/accept`).set(as(location)).expect(200);
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED', closedBy: 'MERCHANT' });
    const again = await request(testApp.app).post(`/v1/disputes/${chargeback.id}/accept`).set(as(location)).expect(200);
    expect(again.body).toEqual(accepted.body);
    expect((await disputeEvents(location, chargeback.id)).filter((event) => event.type === 'dispute.closed')).toHaveLength(1);
    expect(await intentOf(location, intentId)).toMatchObject({ amountDisputed: 500, disputeStatus: 'ACCEPTED' });

    const inquiry = (await openDispute(location, intentId, { stage: 'INQUIRY', reason: 'GENERAL', amount: 100 }).expect(201)).body as Dispute;
    const refused = await request(testApp.app).post(`/v1/disputes/${inquiry.id}/accept`).set(as(location)).expect(409);
    expect(refused.body).toMatchObject({ code: 3016 });
    expect(refused.body.message).toContain('INQUIRY/NEEDS_RESPONSE');
  });
});

describe('bad input changes nothing', () => {
  const location = newLocation();
  let intentId: string;
  beforeAll(async () => {
    intentId = (await paidIntent(testApp, location, { amount: 1000 })).intent.id;
  });

  it('refuses more than is left, an unknown intent, an unpaid one, and a bad document', async () => {
    const over = await openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'GENERAL', amount: 1001 }).expect(409);
    expect(over.body).toMatchObject({ code: 3019, fieldName: 'amount' });
    expect(over.body.message).toContain('1000 (minor units)');
    await openDispute(location, '019ad0b2-3c4d-7e5f-8a6b-7c8d9e0f1a2b', { stage: 'CHARGEBACK', reason: 'GENERAL' }).expect(404);
    const bad = await openDispute(location, intentId, { stage: 'APPEAL', reason: 'GENERAL' }).expect(400);
    expect(bad.body.fieldName).toBe('stage');
    const dispute = (await openDispute(location, intentId, { stage: 'INQUIRY', reason: 'GENERAL' }).expect(201)).body as Dispute;
    const badDocument = await evidence(location, dispute.id, {
      documents: [{ type: 'receipt', url: 'http://x.example/r.pdf', sha256: 'a'.repeat(64) }],
    }).expect(400);
    expect(badDocument.body.fieldName).toBe('documents.0.url');
    expect((await getDispute(location, dispute.id)).evidence.documents).toEqual([]);
    expect((await request(testApp.app).get('/v1/disputes/019ad0b2-3c4d-7e5f-8a6b-7c8d9e0f1a2b').set(as(location)).expect(404)).body.code).toBe(2013);
    expect((await request(testApp.app).get(`/v1/disputes/${dispute.id}`).set(as(newLocation())).expect(404)).body.code).toBe(2013);
  });

  it('lists by status, stage, intent and due date', async () => {
    const all = await request(testApp.app).get('/v1/disputes').set(as(location)).expect(200);
    expect(all.body.results).toBe(1);
    const due = await request(testApp.app).get('/v1/disputes').query({ dueBefore: '2000-01-01T00:00:00Z' }).set(as(location)).expect(200);
    expect(due.body.results).toBe(0);
    const chargebacks = await request(testApp.app).get('/v1/disputes').query({ stage: 'CHARGEBACK' }).set(as(location)).expect(200);
    expect(chargebacks.body.results).toBe(0);
  });
});

describe('races', () => {
  it("two sweeps past an inquiry's deadline move it once: a chargeback with a new deadline, not accepted by the second", async () => {
    const location = newLocation();
    const intentId = (await paidIntent(testApp, location, { amount: 1000 })).intent.id;
    const inquiry = (await openDispute(location, intentId, { stage: 'INQUIRY', reason: 'GENERAL' }).expect(201)).body as Dispute;
    await testApp.db
      .knex('disputes')
      .where({ location_id: location, id: inquiry.id })
      .update({ evidence_due_by: new Date(Date.now() - 1000) });
    await Promise.all([testApp.disputes.passDeadlines(testApp.db.knex, location), testApp.disputes.passDeadlines(testApp.db.knex, location)]);
    const after = await getDispute(location, inquiry.id);
    expect(after).toMatchObject({ stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', closedBy: null });
    expect(Date.parse(after.evidenceDueBy)).toBeGreaterThan(Date.now());
    expect((await disputeEvents(location, inquiry.id)).map((event) => event.type)).toEqual(['dispute.created', 'dispute.updated', 'dispute.funds_withdrawn']);
  });

  it('twenty refunds racing a chargeback never take refunded plus disputed past captured', async () => {
    const location = newLocation();
    const intentId = (await paidIntent(testApp, location, { amount: 2000 })).intent.id;
    const answers = await Promise.all([
      openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'GENERAL', amount: 1000 }),
      ...Array.from({ length: 20 }, () => refund(testApp, location, intentId, { amount: 100 })),
    ]);
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => [200, 201, 409].includes(status))).toBe(true);
    const intent = await intentOf(location, intentId);
    expect((intent.amountRefunded as number) + (intent.amountDisputed as number)).toBeLessThanOrEqual(2000);
    const refunded = answers.slice(1).filter((answer) => answer.status === 201).length * 100;
    expect(intent.amountRefunded).toBe(refunded);
    expect(intent.amountDisputed).toBe(answers[0]!.status === 201 ? 1000 : 0);
  });
});

describe('erasure', () => {
  it("clears the evidence's name, e-mail and document URLs in the row and in past events, keeping the money", async () => {
    const location = newLocation();
    const checkout = await paidIntent(testApp, location, { amount: 1500 });
    const dispute = (await openDispute(location, checkout.intent.id, { stage: 'CHARGEBACK', reason: 'FRAUDULENT' }).expect(201)).body as Dispute;
    const sha256 = 'a'.repeat(64);
    await evidence(location, dispute.id, {
      customerName: 'Ada Lovelace',
      customerEmail: 'ada@example.com',
      documents: [{ type: 'customer_signature', url: 'https://files.example.com/ada.pdf', sha256 }],
    }).expect(200);
    await request(testApp.app).delete(`/v1/customers/${checkout.customerId}`).set(as(location)).expect(200);
    const after = await getDispute(location, dispute.id);
    expect(after).toMatchObject({ customerId: null, amount: 1500, status: 'NEEDS_RESPONSE' });
    expect(after.evidence).toMatchObject({ customerName: null, customerEmail: null, documents: [{ type: 'customer_signature', url: null, sha256 }] });
    const events = JSON.stringify(await disputeEvents(location, dispute.id));
    expect(events).not.toContain('Ada Lovelace');
    expect(events).not.toContain('ada@example.com');
    expect(events).not.toContain('files.example.com');
    expect(events).toContain(sha256);
  });
});

describe('the location settings', () => {
  it('give the fee back with a won chargeback when feeReturnedWhenWon', async () => {
    const location = newLocation();
    await settleWith(testApp, location, { disputes: { feeReturnedWhenWon: true } });
    const intentId = (await paidIntent(testApp, location, { amount: 1000 })).intent.id;
    const dispute = (await openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'GENERAL' }).expect(201)).body as Dispute;
    await evidence(location, dispute.id, { explanation: 'winning_evidence', submit: true }).expect(200);
    await request(testApp.app).post(`/v1/sandbox/disputes/${dispute.id}/decide`).set(as(location)).send({ outcome: 'WON' }).expect(200);
    expect((await disputeLinesOf(location, intentId)).map((line) => [line.type, line.gross, line.fee, line.net])).toEqual([
      ['DISPUTE_WITHDRAWAL', -1000, 0, -1000],
      ['DISPUTE_FEE', 0, FEES.disputeFee, -FEES.disputeFee],
      ['DISPUTE_REINSTATEMENT', 1000, 0, 1000],
      ['DISPUTE_FEE_RETURN', 0, -FEES.disputeFee, FEES.disputeFee],
    ]);
  });

  it('count deadlines by the windows in force, and withdraw after the days they say', async () => {
    const location = newLocation();
    await settleWith(testApp, location, { disputes: { fundsWithdrawnAfterDays: 2, responseDays: { VISA: 10 } } });
    const settings = await request(testApp.app).get('/v1/location-settings').set(as(location)).expect(200);
    expect(settings.body.disputes).toMatchObject({ fundsWithdrawnAfterDays: 2, responseDays: { VISA: 10, MASTERCARD: RULES.responseDays.MASTERCARD } });
    const intentId = (await paidIntent(testApp, location, { amount: 1000 })).intent.id;
    const dispute = (await openDispute(location, intentId, { stage: 'CHARGEBACK', reason: 'GENERAL' }).expect(201)).body as Dispute;
    expect(Date.parse(dispute.evidenceDueBy) - Date.parse(dispute.openedAt)).toBe(10 * DAY * 1000);
    expect(dispute.fundsWithdrawnAt).toBeNull();
    expect(await disputeLinesOf(location, intentId)).toEqual([]);
    expect(await intentOf(location, intentId)).toMatchObject({ amountDisputed: 1000 });
    await advance(location, 2 * DAY + 60);
    expect((await getDispute(location, dispute.id)).fundsWithdrawnAt).not.toBeNull();
    expect((await disputeLinesOf(location, intentId)).map((line) => line.type)).toEqual(['DISPUTE_WITHDRAWAL', 'DISPUTE_FEE']);
  });
});

describe('the evidence draft', () => {
  it("gathers the payment, its refunds, the customer's other payments of the same amount and the mandate's consent, submitting nothing", async () => {
    const location = newLocation();
    const checkout = await paidIntent(testApp, location, { amount: 2200 });
    const mandate = await createMandate(testApp, location, checkout.customerId, checkout.cardId);
    const charge = async () => {
      const created = await request(testApp.app)
        .post('/v1/payment-intents')
        .set(as(location))
        .send({
          amount: 2200,
          currency: 'USD',
          externalReferenceId: 'sub-1',
          customerId: checkout.customerId,
          captureMethod: 'AUTOMATIC',
          offSession: true,
          mandateId: mandate.id,
        })
        .expect(201);
      await request(testApp.app)
        .post(`/v1/payment-intents/${created.body.id}/confirm`)
        .set(as(location))
        .send({})
        .expect(200, /SUCCEEDED/);
      return created.body.id as string;
    };
    const disputed = await charge();
    const again = await charge();
    await refund(testApp, location, disputed, { amount: 200 }).expect(201);
    const dispute = (await openDispute(location, disputed, { stage: 'CHARGEBACK', reason: 'SUBSCRIPTION_CANCELED' }).expect(201)).body as Dispute;
    const draft = await request(testApp.app).get(`/v1/disputes/${dispute.id}/evidence-draft`).set(as(location)).expect(200);
    expect(draft.body).toMatchObject({
      disputeId: dispute.id,
      reason: 'SUBSCRIPTION_CANCELED',
      evidence: { receiptReference: 'sub-1', documentTypesNeeded: ['recurring_transaction_agreement', 'cancellation_policy'] },
      payment: { id: disputed, amountCaptured: 2200, tip: 0, currency: 'USD', card: { brand: 'VISA', lastFour: '4242' } },
      refunds: [{ amount: 200, status: 'SUCCEEDED' }],
      mandateConsent: { mandateId: mandate.id, textVersion: 'gold-plan-terms-v3', channel: 'ONLINE' },
    });
    expect(draft.body.sameAmountWithinADay.map((other: { id: string }) => other.id)).toEqual([again, checkout.intent.id]);
    expect(draft.body.evidence.explanation).toContain('gold-plan-terms-v3');
    // Nothing staged: the dispute is as it was.
    expect(await getDispute(location, dispute.id)).toEqual(dispute);
    await request(testApp.app).get('/v1/disputes/019ad0b2-3c4d-7e5f-8a6b-7c8d9e0f1a2b/evidence-draft').set(as(location)).expect(404);
  });
});

describe('without the sandbox processor', () => {
  it('has no dispute helpers: 404, as for any path that is not there, changing nothing', async () => {
    const real = await startTestApp({ processor: (db) => new GatedProcessor(new SandboxProcessor(db.knex, { latencyMs: 0 })) });
    try {
      const location = newLocation();
      const { intent } = await paidIntent(real, location, { lastFour: '2685' });
      const open = await request(real.app)
        .post(`/v1/sandbox/payment-intents/${intent.id}/disputes`)
        .set(real.as(location))
        .send({ stage: 'CHARGEBACK', reason: 'GENERAL' });
      expect(open.status).toBe(404);
      expect(open.body).toMatchObject({ messageKey: 'ROUTE_NOT_FOUND' });
      await request(real.app).post(`/v1/sandbox/disputes/${intent.id}/escalate`).set(real.as(location)).expect(404);
      await request(real.app).post(`/v1/sandbox/disputes/${intent.id}/decide`).set(real.as(location)).send({ outcome: 'WON' }).expect(404);
      expect(await real.db.knex('disputes').where({ location_id: location })).toEqual([]);
    } finally {
      await real.close();
    }
  });
});
