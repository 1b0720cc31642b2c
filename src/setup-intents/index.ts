/**
 * What the setup-intents feature offers the flows above it (the card setup's
 * confirm, the erasure): the record's reads and lock, the one way a setup
 * intent moves (moveSetupIntent, which its status table checks), and its
 * answer's schema. Nothing else of the feature is imported from outside it.
 */
export type { SetupCard, SetupIntentRecord } from './setup-intent-record';
export { moveSetupIntent, type SetupStep } from './setup-intent-moves';
export { refuseUnless as refuseSetupUnless, SETUP_INTENT_STATUS_POINTER } from './setup-intent-status';
export { eraseSetupIntentsOf, findSetupIntent, lockSetupIntent, setupsLeftProcessing } from './setup-intents.face';
export { setupIntentParamsSchema, setupIntentSchema, toSetupIntent, toSetupIntentEventObject } from './setup-intents.schemas';
export { setupIntentNotFound, type SetupIntentsService } from './setup-intents.service';
