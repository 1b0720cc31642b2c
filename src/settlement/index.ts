/**
 * What the settlement feature offers the features above it: the ledger line
 * each money movement writes in its own statement (payment-intents' capture,
 * refunds' refund and its failure). Settings, batches, payouts and reports
 * are the feature's own (one home: src/settlement).
 */
export { captureLineWrite, refundFailureLineWrite, refundLineWrite } from './ledger-line-statements';
export { ledgerTrailResponseSchema } from './settlement.schemas';
export type { SettlementService } from './settlement.service';
