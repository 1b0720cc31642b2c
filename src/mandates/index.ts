/**
 * What the mandates feature offers the other features and the flows: a
 * customer's mandate as a payment checks it, the kinds of standing
 * instruction, and the erasure's steps. Nothing else of the feature is
 * imported from outside it.
 */
export { STANDING_INSTRUCTION_TYPES, type MandateCard, type MandateRecord, type StandingInstructionType } from './mandate-record';
export { mandateForCharge, revokeAndScrubMandatesOf } from './mandates.face';
export type { MandatesService } from './mandates.service';
