import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { runRecording, statementRecordingEvent } from '../change-log/record-events';
import type { WriteContext } from '../change-log/write-context';
import { clockNow } from '../platform/clock/location-clock';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import { runSweep, sweepStatement } from '../platform/db/sweep-statement';
import { refundFailureLineWrite, refundLineWrite } from '../settlement';
import type { RefundRecord } from './refund-record';
import { REFUND_CREATED_STATUS, REFUND_UNSETTLED_SQL, refundEventOf, type RefundReason, type RefundStatus, type SettledRefundStatus } from './refund-status';
import { toRefund } from './refunds.schemas';

export type { RefundRecord } from './refund-record';

interface RefundRow {
  location_id: string;
  id: string;
  payment_intent_id: string;
  amount: number;
  reason: RefundReason | null;
  status: RefundStatus;
  failure_code: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const TABLE = 'refunds';
const COLUMNS = [
  'location_id',
  'id',
  'payment_intent_id',
  'amount',
  'reason',
  'status',
  'failure_code',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof RefundRow>;

function toRecord(row: RefundRow): RefundRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    paymentIntentId: row.payment_intent_id,
    amount: row.amount,
    reason: row.reason,
    status: row.status,
    failureCode: row.failure_code,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * A refund made PENDING with its `refund.created` event, in one statement:
 * its share is taken from its intent first (only while the intent is in a
 * status the table lets a refund act in, and only if what is refunded and
 * what chargebacks hold stay within what was captured), and the refund is
 * inserted only if it was.
 * Racing refunds queue on the intent's row, and each sees the amount the one
 * before it took. The event names the intent's customer as the update found
 * it (none once erased): a refund holds no personal data of its own. The
 * refund's money lives on the intent's row (amount_refunded), so the
 * statement writes that row too: one round trip, no transaction to hold.
 */
const CREATE_REFUND = statementRecordingEvent('create_refund', {
  write: `taken as (
     update payment_intents set amount_refunded = amount_refunded + @amount, updated_at = now()
      where location_id = @location_id and id = @payment_intent_id and status = any(@statuses::text[])
        and amount_refunded + amount_disputed + @amount <= amount_captured
      returning location_id, customer_id, amount_refunded, external_reference_id, currency
   ),
   made as (
     insert into ${TABLE} (location_id, id, payment_intent_id, amount, reason, status, created_at, updated_at)
     select taken.location_id, @id, @payment_intent_id, @amount, @reason, '${REFUND_CREATED_STATUS}', @created_at, @created_at from taken
     returning ${COLUMNS.join(', ')}
   ),
   made_for as (select made.location_id, taken.customer_id from made, taken),
   ${refundLineWrite('refund_line', 'made', 'taken')}`,
  event: { source: 'made_for', customerId: 'made_for.customer_id' },
  answer: `select ${COLUMNS.join(', ')} from made`,
});

/** Makes the PENDING refund, with its event; undefined if its intent has less than `amount` left to refund (or a status that refuses it). */
export async function createPendingRefund(
  write: WriteContext,
  refund: { id: string; paymentIntentId: string; amount: number; reason: RefundReason | null; refundableIn: readonly string[] },
): Promise<RefundRecord | undefined> {
  const createdAt = clockNow();
  const record: RefundRecord = {
    locationId: write.locationId,
    id: refund.id,
    paymentIntentId: refund.paymentIntentId,
    amount: refund.amount,
    reason: refund.reason,
    status: REFUND_CREATED_STATUS,
    failureCode: null,
    createdAt,
    updatedAt: createdAt,
  };
  const [row] = await runRecording<RefundRow>(
    write.db,
    CREATE_REFUND,
    {
      location_id: write.locationId,
      payment_intent_id: refund.paymentIntentId,
      id: refund.id,
      amount: refund.amount,
      reason: refund.reason,
      created_at: createdAt,
      statuses: refund.refundableIn,
      refund_line_id: uuidv7(),
    },
    { origin: write.origin, type: 'refund.created', object: toRefund(record), previous: null },
  );
  return row === undefined ? undefined : toRecord(row);
}

/**
 * A PENDING refund's move to `to`, with its event, in one statement; a
 * FAILED one gives its amount back to its intent in the same statement.
 * Nothing if it was not PENDING any more: of a request and a sweep (or two
 * replicas' sweeps) settling one refund, exactly one does.
 */
const SETTLE_REFUND = statementRecordingEvent('settle_refund', {
  write: `settled as (
     update ${TABLE} set status = @status, failure_code = @failure_code, updated_at = now()
      where location_id = @location_id and id = @id and status in (${REFUND_UNSETTLED_SQL})
      returning ${COLUMNS.join(', ')}
   ),
   given_back as (
     update payment_intents intent set amount_refunded = intent.amount_refunded - settled.amount, updated_at = now()
       from settled
      where settled.status = 'FAILED' and intent.location_id = settled.location_id and intent.id = settled.payment_intent_id
      returning intent.id
   ),
   settled_for as (
     select settled.location_id, intent.customer_id
       from settled join payment_intents intent on intent.location_id = settled.location_id and intent.id = settled.payment_intent_id
   ),
   ${refundFailureLineWrite('refund_failure_line', 'settled')}`,
  event: { source: 'settled_for', customerId: 'settled_for.customer_id' },
  answer: `select ${COLUMNS.join(', ')} from settled`,
});

export async function settleRefund(
  write: WriteContext,
  refund: RefundRecord,
  to: SettledRefundStatus,
  failureCode: string | null,
): Promise<RefundRecord | undefined> {
  const object = toRefund({ ...refund, status: to, failureCode });
  const [row] = await runRecording<RefundRow>(
    write.db,
    SETTLE_REFUND,
    { location_id: write.locationId, id: refund.id, status: to, failure_code: failureCode, refund_failure_line_id: uuidv7() },
    { origin: write.origin, type: refundEventOf(to), object, previous: { status: refund.status } },
  );
  return row === undefined ? undefined : toRecord(row);
}

const REFUND = preparedStatement('refund', `select ${COLUMNS.join(', ')} from ${TABLE} where location_id = ? and id = ?`);

export async function findRefund(db: Knex, locationId: string, id: string): Promise<RefundRecord | undefined> {
  const [row] = await runPrepared<RefundRow>(db, REFUND, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/** A page of an intent's refunds, newest first. */
export async function listRefunds(
  db: Knex,
  locationId: string,
  paymentIntentId: string,
  page: PageQuery,
): Promise<{ refunds: RefundRecord[]; hasMore: boolean }> {
  const rows = db(TABLE)
    .select([...COLUMNS])
    .where({ location_id: locationId, payment_intent_id: paymentIntentId });
  const found = await cursorPage<RefundRow>(rows, page, 'desc');
  return { refunds: found.rows.map(toRecord), hasMore: found.hasMore };
}

const PENDING_REFUNDS = sweepStatement(
  'pending_refunds',
  `select ${COLUMNS.join(', ')} from ${TABLE}`,
  `status in (${REFUND_UNSETTLED_SQL}) and updated_at < now() - make_interval(secs => ?)`,
  'updated_at',
);

/**
 * PENDING refunds not changed for `olderThanSeconds`, oldest first, across
 * locations or at one: the sweep (or a sandbox clock's rules) asks the processor about them.
 */
export async function pendingRefunds(db: Knex, olderThanSeconds: number, limit: number, locationId?: string): Promise<RefundRecord[]> {
  return (await runSweep<RefundRow>(db, PENDING_REFUNDS, [olderThanSeconds], limit, locationId)).map(toRecord);
}
