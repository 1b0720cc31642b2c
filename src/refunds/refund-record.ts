import type { RefundReason, RefundStatus } from './refund-status';

/** A refund as the service holds it (refunds.schemas.ts makes the API's answer of it). */
export interface RefundRecord {
  locationId: string;
  id: string;
  paymentIntentId: string;
  amount: number;
  reason: RefundReason | null;
  status: RefundStatus;
  /** Why the processor declined it (FAILED only). */
  failureCode: string | null;
  createdAt: Date;
  updatedAt: Date;
}
