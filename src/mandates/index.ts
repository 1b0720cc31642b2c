/**
 * What the mandates feature offers the other features and the flows: a
 * customer's mandate as a payment checks it, the kinds of standing
 * instruction, and the erasure's steps. Nothing else of the feature is
 * imported from outside it.
 */
export {
  CONSENT_CHANNELS,
  consentFromColumns,
  STANDING_INSTRUCTION_TYPES,
  type ConsentRecord,
  type MandateCard,
  type MandateRecord,
  type StandingInstructionType,
} from './mandate-record';
export { recordedConsent } from './consent';
export { makeMandate, mandateForCharge, revokeAndScrubMandatesOf } from './mandates.face';
export { consentRequestSchema, consentSchema, toConsent } from './mandates.schemas';
export type { MandatesService } from './mandates.service';
