import type { Knex } from 'knex';
import { recordEvents } from '../change-log/record-events';
import type { WriteContext } from '../change-log/write-context';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
import type { RefundRecord } from './refund-record';
import { refundEventOf, type RefundReason, type RefundStatus, type SettledRefundStatus } from './refund-status';
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

const INSERT_REFUND = namedStatement(
  'insert_refund',
  `insert into ${TABLE} (location_id, id, payment_intent_id, amount, reason, status)
   values (@location_id, @id, @payment_intent_id, @amount, @reason, 'PENDING')
   returning ${COLUMNS.join(', ')}`,
);

/**
 * A PENDING refund and its `refund.created` event, in the transaction that
 * took its amount from the intent. `customerId` is the intent's (null once
 * its customer is erased): a refund holds no personal data of its own.
 */
export async function insertPendingRefund(
  trx: Knex.Transaction,
  write: Omit<WriteContext, 'db'>,
  refund: { id: string; paymentIntentId: string; amount: number; reason: RefundReason | null; customerId: string | null },
): Promise<RefundRecord> {
  const [row] = await runNamed<RefundRow>(trx, INSERT_REFUND, {
    location_id: write.locationId,
    id: refund.id,
    payment_intent_id: refund.paymentIntentId,
    amount: refund.amount,
    reason: refund.reason,
  });
  const created = toRecord(row as RefundRow);
  await recordEvents(trx, write, [{ type: 'refund.created', customerId: refund.customerId, object: toRefund(created), previous: null }]);
  return created;
}

const SETTLE_REFUND = namedStatement(
  'settle_refund',
  `update ${TABLE} set status = @status, failure_code = @failure_code, updated_at = now()
    where location_id = @location_id and id = @id and status = 'PENDING'
    returning ${COLUMNS.join(', ')}`,
);

/**
 * Moves a PENDING refund to `to`, with its event, in the caller's
 * transaction. Undefined if it was not PENDING any more: of a request and a
 * sweep (or two replicas' sweeps) settling one refund, exactly one does.
 */
export async function settleRefund(
  trx: Knex.Transaction,
  write: Omit<WriteContext, 'db'>,
  refund: Pick<RefundRecord, 'id'>,
  to: SettledRefundStatus,
  failureCode: string | null,
  customerId: string | null,
): Promise<RefundRecord | undefined> {
  const [row] = await runNamed<RefundRow>(trx, SETTLE_REFUND, { location_id: write.locationId, id: refund.id, status: to, failure_code: failureCode });
  if (row === undefined) return undefined;
  const settled = toRecord(row);
  await recordEvents(trx, write, [{ type: refundEventOf(to), customerId, object: toRefund(settled), previous: { status: 'PENDING' } }]);
  return settled;
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

const PENDING_REFUNDS = preparedStatement(
  'pending_refunds',
  `select ${COLUMNS.join(', ')} from ${TABLE}
    where status = 'PENDING' and updated_at < now() - make_interval(secs => ?)
    order by updated_at limit ?`,
);

/** PENDING refunds not changed for `olderThanSeconds`, across locations, oldest first: the sweep asks the processor about them. */
export async function pendingRefunds(db: Knex, olderThanSeconds: number, limit: number): Promise<RefundRecord[]> {
  return (await runPrepared<RefundRow>(db, PENDING_REFUNDS, [olderThanSeconds, limit])).map(toRecord);
}
