/**
 * What the refunds feature offers outside it: the refund as answered (the
 * webhooks' document), its status table for the document, and the service's
 * type for the handlers. Making, settling and reading refunds are the
 * feature's own (one home: src/refunds).
 */
export { REFUND_MOVES, refundLifecycle, type RefundReason } from './refund-status';
export { refundSchema, toRefund } from './refunds.schemas';
export type { RefundsService } from './refunds.service';
