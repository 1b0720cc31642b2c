/**
 * What the settlement feature offers the features above it: the ledger line
 * each money movement writes in its own statement (payment-intents' capture,
 * refunds' refund and its failure, disputes' withdrawals and reinstatements),
 * and the dispute rules in force. Settings, batches, payouts and reports are
 * the feature's own (one home: src/settlement).
 */
export { captureLineWrite, disputeLinesWrite, refundFailureLineWrite, refundLineWrite } from './ledger-line-statements';
export { disputeRulesInForce } from './settlement.face';
export type { DisputeLineType } from './ledger-line-types';
export type { DisputeRules } from './settlement.schemas';
export { ledgerTrailResponseSchema } from './settlement.schemas';
export type { SettlementService } from './settlement.service';
