import { defineModule } from '../../api/module';
import { cardSetupOperations } from './card-setup.operations';
import { CardSetupFlow } from './card-setup.flow';

const PROCESSING_RECOVERY_SWEEP_MS = 15_000;

/**
 * The card setup: a setup intent's confirm (the $0 verification, then the
 * card, the mandate and the intent's success in one transaction), and the
 * recovery of confirms a dead process left PROCESSING (at start too).
 */
export const cardSetupModule = defineModule({
  key: 'cardSetup',
  folder: 'flows/card-setup',
  layer: 'flow',
  build: ({ processor, logger, settings }) => new CardSetupFlow(processor, logger, { maxCardsPerCustomer: settings.maxCardsPerCustomer }),
  operations: cardSetupOperations,
  timedRules: (cardSetup, { settings }) => [
    {
      what: 'setup intents left PROCESSING settled',
      everyMs: PROCESSING_RECOVERY_SWEEP_MS,
      atStart: true,
      run: (db, locationId) => cardSetup.recoverProcessing(db, settings.processingRecoverySeconds, locationId),
    },
  ],
});
