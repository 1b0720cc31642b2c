/**
 * What the disputes feature offers outside it: the dispute as answered (the
 * webhooks' document), its status table, what a refund does to an inquiry
 * that it leaves nothing to dispute, what an erasure clears, and the
 * service's type for the handlers. The rest is the feature's own (one home:
 * src/disputes).
 */
export { disputeLifecycle } from './dispute-status';
export { disputeParamsSchema, disputeReasonSchema, disputeSchema, evidenceDocumentTypeSchema } from './disputes.schemas';
export { evidenceTypesFor } from './dispute-outcome';
export { scrubDisputesOfCustomer } from './disputes.face';
export { closeInquiriesOfRefunded, type DisputesService } from './disputes.service';
