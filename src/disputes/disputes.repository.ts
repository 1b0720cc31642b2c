import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { DISPUTE_CARDS } from '../payment-processor/sandbox-cards';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
import { runSweep, sweepStatement } from '../platform/db/sweep-statement';
import { disputeLinesWrite, type DisputeLineType } from '../settlement';
import type { DisputeEvidence, DisputeRecord } from './dispute-record';
import type { DisputeCloser, DisputeReason, DisputeStage, DisputeStatus } from './dispute-status';

export type { DisputeRecord } from './dispute-record';

interface DisputeRow {
  location_id: string;
  id: string;
  payment_intent_id: string;
  customer_id: string | null;
  external_reference_id: string | null;
  amount: number;
  currency: string;
  stage: DisputeStage;
  status: DisputeStatus;
  reason: DisputeReason;
  network_reason_code: string | null;
  card_brand: string | null;
  card_last_four: string | null;
  evidence: DisputeEvidence | string;
  forced_outcome: 'WON' | 'LOST' | null;
  opened_at: Date | string;
  evidence_due_by: Date | string;
  submitted_at: Date | string | null;
  decision_expected_by: Date | string | null;
  closed_at: Date | string | null;
  closed_by: DisputeCloser | null;
  funds_due_at: Date | string | null;
  funds_withdrawn_at: Date | string | null;
  funds_reinstated_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const TABLE = 'disputes';
const COLUMNS = [
  'location_id',
  'id',
  'payment_intent_id',
  'customer_id',
  'external_reference_id',
  'amount',
  'currency',
  'stage',
  'status',
  'reason',
  'network_reason_code',
  'card_brand',
  'card_last_four',
  'evidence',
  'forced_outcome',
  'opened_at',
  'evidence_due_by',
  'submitted_at',
  'decision_expected_by',
  'closed_at',
  'closed_by',
  'funds_due_at',
  'funds_withdrawn_at',
  'funds_reinstated_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof DisputeRow>;

const dateOf = (value: Date | string | null) => (value === null ? null : new Date(value));

function toRecord(row: DisputeRow): DisputeRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    paymentIntentId: row.payment_intent_id,
    customerId: row.customer_id,
    externalReferenceId: row.external_reference_id,
    amount: row.amount,
    currency: row.currency,
    stage: row.stage,
    status: row.status,
    reason: row.reason,
    networkReasonCode: row.network_reason_code,
    card: row.card_brand === null || row.card_last_four === null ? null : { brand: row.card_brand, lastFour: row.card_last_four },
    evidence: (typeof row.evidence === 'string' ? JSON.parse(row.evidence) : row.evidence) as DisputeEvidence,
    forcedOutcome: row.forced_outcome,
    openedAt: new Date(row.opened_at),
    evidenceDueBy: new Date(row.evidence_due_by),
    submittedAt: dateOf(row.submitted_at),
    decisionExpectedBy: dateOf(row.decision_expected_by),
    closedAt: dateOf(row.closed_at),
    closedBy: row.closed_by,
    fundsDueAt: dateOf(row.funds_due_at),
    fundsWithdrawnAt: dateOf(row.funds_withdrawn_at),
    fundsReinstatedAt: dateOf(row.funds_reinstated_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function toRow(dispute: DisputeRecord): DisputeRow {
  return {
    location_id: dispute.locationId,
    id: dispute.id,
    payment_intent_id: dispute.paymentIntentId,
    customer_id: dispute.customerId,
    external_reference_id: dispute.externalReferenceId,
    amount: dispute.amount,
    currency: dispute.currency,
    stage: dispute.stage,
    status: dispute.status,
    reason: dispute.reason,
    network_reason_code: dispute.networkReasonCode,
    card_brand: dispute.card?.brand ?? null,
    card_last_four: dispute.card?.lastFour ?? null,
    evidence: JSON.stringify(dispute.evidence),
    forced_outcome: dispute.forcedOutcome,
    opened_at: dispute.openedAt,
    evidence_due_by: dispute.evidenceDueBy,
    submitted_at: dispute.submittedAt,
    decision_expected_by: dispute.decisionExpectedBy,
    closed_at: dispute.closedAt,
    closed_by: dispute.closedBy,
    funds_due_at: dispute.fundsDueAt,
    funds_withdrawn_at: dispute.fundsWithdrawnAt,
    funds_reinstated_at: dispute.fundsReinstatedAt,
    created_at: dispute.createdAt,
    updated_at: dispute.updatedAt,
  };
}

export async function insertDispute(trx: Knex.Transaction, dispute: DisputeRecord): Promise<void> {
  await trx(TABLE).insert(toRow(dispute));
}

/** Writes every field of the dispute as `dispute` holds it (the caller holds its lock). */
export async function saveDispute(trx: Knex.Transaction, dispute: DisputeRecord): Promise<void> {
  const { location_id: locationId, id, ...fields } = toRow(dispute);
  await trx(TABLE).where({ location_id: locationId, id }).update(fields);
}

const DISPUTE = preparedStatement('dispute', `select ${COLUMNS.join(', ')} from ${TABLE} where location_id = ? and id = ?`);
const DISPUTE_FOR_UPDATE = preparedStatement('dispute_for_update', `${DISPUTE.text} for update`);

export async function findDispute(db: Knex, locationId: string, id: string): Promise<DisputeRecord | undefined> {
  const [row] = await runPrepared<DisputeRow>(db, DISPUTE, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/** The dispute, locked until the transaction ends (its intent locked first: every move of a dispute takes the two in that order). */
export async function lockDispute(trx: Knex.Transaction, locationId: string, id: string): Promise<DisputeRecord | undefined> {
  const [row] = await runPrepared<DisputeRow>(trx, DISPUTE_FOR_UPDATE, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/**
 * What the intent's chargebacks hold changes by `delta`, and its dispute
 * status becomes `status`, in the guarded update refunds use: a hold that
 * would take refunded plus disputed past captured changes nothing (false).
 * Racing refunds queue on the same row and see the hold.
 */
const HOLD_ON_INTENT = namedStatement(
  'dispute_hold_on_intent',
  `update payment_intents set amount_disputed = amount_disputed + @delta, dispute_status = @status, updated_at = now()
    where location_id = @location_id and id = @payment_intent_id
      and (@delta <= 0 or amount_refunded + amount_disputed + @delta <= amount_captured)
   returning id`,
);

export async function holdOnIntent(
  trx: Knex.Transaction,
  dispute: Pick<DisputeRecord, 'locationId' | 'paymentIntentId' | 'status'>,
  delta: number,
): Promise<boolean> {
  const rows = await runNamed(trx, HOLD_ON_INTENT, {
    location_id: dispute.locationId,
    payment_intent_id: dispute.paymentIntentId,
    delta,
    status: dispute.status,
  });
  return rows.length === 1;
}

const lineStatements = new Map<string, ReturnType<typeof namedStatement>>();

/** The dispute's ledger lines of `types`, once each, dated now on the location's clock (settlement's disputeLinesWrite). */
export async function writeDisputeLines(trx: Knex.Transaction, dispute: DisputeRecord, types: readonly DisputeLineType[]): Promise<number> {
  const key = types.join(',');
  let statement = lineStatements.get(key);
  if (statement === undefined) {
    statement = namedStatement(
      `dispute_lines_${types.map((type) => type.toLowerCase()).join('_')}`,
      `with source as (select ${COLUMNS.join(', ')} from ${TABLE} where location_id = @location_id and id = @id),
       ${disputeLinesWrite('dispute_line', 'source', types)}
       select count(*)::int as written from dispute_line`,
    );
    lineStatements.set(key, statement);
  }
  const [row] = await runNamed<{ written: number }>(trx, statement, { location_id: dispute.locationId, id: dispute.id, dispute_line_id: uuidv7() });
  return row?.written ?? 0;
}

export interface DisputeFilters {
  status?: DisputeStatus;
  stage?: DisputeStage;
  paymentIntentId?: string;
  dueBefore?: string;
}

/** A page of the location's disputes, newest first. */
export async function listDisputes(
  db: Knex,
  locationId: string,
  filters: DisputeFilters,
  page: PageQuery,
): Promise<{ disputes: DisputeRecord[]; hasMore: boolean }> {
  const rows = db(TABLE)
    .select([...COLUMNS])
    .where({ location_id: locationId });
  if (filters.status !== undefined) rows.andWhere('status', filters.status);
  if (filters.stage !== undefined) rows.andWhere('stage', filters.stage);
  if (filters.paymentIntentId !== undefined) rows.andWhere('payment_intent_id', filters.paymentIntentId);
  if (filters.dueBefore !== undefined) rows.andWhere('evidence_due_by', '<', filters.dueBefore);
  const found = await cursorPage<DisputeRow>(rows, page, 'desc');
  return { disputes: found.rows.map(toRecord), hasMore: found.hasMore };
}

const PAST_RESPONSE = sweepStatement(
  'disputes_past_response',
  `select ${COLUMNS.join(', ')} from ${TABLE}`,
  "status = 'NEEDS_RESPONSE' and evidence_due_by <= now()",
  'evidence_due_by',
);
const DECISION_DUE = sweepStatement(
  'disputes_decision_due',
  `select ${COLUMNS.join(', ')} from ${TABLE}`,
  "status = 'UNDER_REVIEW' and decision_expected_by <= now()",
  'decision_expected_by',
);
const FUNDS_DUE = sweepStatement(
  'disputes_funds_due',
  `select ${COLUMNS.join(', ')} from ${TABLE}`,
  "stage = 'CHARGEBACK' and funds_withdrawn_at is null and funds_due_at is not null and funds_due_at <= now()",
  'funds_due_at',
);

/** Disputes whose `evidenceDueBy` has passed with no evidence submitted, oldest deadline first. */
export async function disputesPastResponse(db: Knex, limit: number, locationId?: string): Promise<DisputeRecord[]> {
  return (await runSweep<DisputeRow>(db, PAST_RESPONSE, [], limit, locationId)).map(toRecord);
}

/** Disputes under review whose decision is due. */
export async function disputesDecisionDue(db: Knex, limit: number, locationId?: string): Promise<DisputeRecord[]> {
  return (await runSweep<DisputeRow>(db, DECISION_DUE, [], limit, locationId)).map(toRecord);
}

/** Chargebacks whose funds are due to be withdrawn. */
export async function disputesFundsDue(db: Knex, limit: number, locationId?: string): Promise<DisputeRecord[]> {
  return (await runSweep<DisputeRow>(db, FUNDS_DUE, [], limit, locationId)).map(toRecord);
}

/**
 * The sandbox's dispute cards' payments captured at least `afterSeconds`
 * ago and never disputed (the partial index payment_intents_sandbox_disputes
 * holds them alone), with something left to dispute.
 */
const SANDBOX_CARD_CAPTURES = sweepStatement(
  'sandbox_dispute_card_captures',
  `select location_id, id, latest_payment #>> '{card,lastFour}' as last_four from payment_intents`,
  `status = 'SUCCEEDED' and dispute_status is null and (latest_payment #>> '{card,lastFour}') in (${Object.keys(DISPUTE_CARDS)
    .map((lastFour) => `'${lastFour}'`)
    .join(', ')})
   and captured_at <= now() - make_interval(secs => ?) and amount_refunded + amount_disputed < amount_captured`,
  'captured_at',
);

export async function sandboxDisputeCardCaptures(
  db: Knex,
  afterSeconds: number,
  limit: number,
  locationId?: string,
): Promise<Array<{ location_id: string; id: string; last_four: string }>> {
  return runSweep(db, SANDBOX_CARD_CAPTURES, [afterSeconds], limit, locationId);
}

/** The customer's disputes cut from them, and the evidence's personal fields cleared: the name, the e-mail, each document's URL. */
const SCRUB_DISPUTES_OF_CUSTOMER = preparedStatement(
  'scrub_disputes_of_customer',
  `update ${TABLE}
      set customer_id = null, updated_at = now(),
          evidence = (evidence - 'customerName' - 'customerEmail')
                     || case when jsonb_typeof(evidence -> 'documents') = 'array'
                             then jsonb_build_object('documents', (select coalesce(jsonb_agg(document || '{"url": null}'::jsonb), '[]'::jsonb)
                                                                    from jsonb_array_elements(evidence -> 'documents') as document))
                             else '{}'::jsonb end
    where location_id = ? and customer_id = ?`,
);

/** An erasure's part here, in its transaction. */
export async function scrubDisputesOfCustomer(trx: Knex.Transaction, locationId: string, customerId: string): Promise<void> {
  await runPrepared(trx, SCRUB_DISPUTES_OF_CUSTOMER, [locationId, customerId]);
}
