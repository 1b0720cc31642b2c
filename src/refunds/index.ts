/**
 * What the refunds feature offers the flow above it (src/flows/refunds): a
 * PENDING refund made with its event, its one move with its event, and the
 * sweep's read. Nothing else of the feature is imported from outside it.
 */
export { REFUND_MOVES, refundLifecycle, type RefundReason } from './refund-status';
export { createPendingRefund, pendingRefunds, settleRefund, type RefundRecord } from './refunds.face';
export { createRefundRequestSchema, refundSchema, toRefund, type CreateRefundInput } from './refunds.schemas';
export type { RefundsService } from './refunds.service';
