import type { Knex } from 'knex';
import type { WriteContext } from '../change-log/write-context';
import type { SettledRefundStatus } from './refund-status';
import {
  createPendingRefund as insertPendingRefund,
  pendingRefunds as pendingRefundRows,
  settleRefund as settleRefundRow,
  type RefundRecord,
} from './refunds.repository';

/**
 * What the refunds feature does for the flow above it (src/flows/refunds),
 * by name: its storage stays inside (index.ts offers these, never a
 * repository function).
 */
export type { RefundRecord } from './refunds.repository';

/** Makes the PENDING refund with its event, its amount taken from the intent's refundable amount; undefined when not that much is left. */
export const createPendingRefund: typeof insertPendingRefund = (...args) => insertPendingRefund(...args);

/** A PENDING refund's one move, with its event; undefined when another request or sweep settled it first. */
export function settleRefund(
  write: WriteContext,
  refund: RefundRecord,
  to: SettledRefundStatus,
  failureCode: string | null,
): Promise<RefundRecord | undefined> {
  return settleRefundRow(write, refund, to, failureCode);
}

/** PENDING refunds not changed for `olderThanSeconds`, oldest first, across locations or at one: asked about again. */
export function pendingRefunds(db: Knex, olderThanSeconds: number, limit: number, locationId?: string): Promise<RefundRecord[]> {
  return pendingRefundRows(db, olderThanSeconds, limit, locationId);
}
