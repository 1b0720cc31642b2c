import { defineModule } from '../../api/module';
import { checkoutOperations } from './checkout.operations';
import { CheckoutFlow } from './checkout.flow';

/** Often enough that an authorization is voided within 10 s of its capture window's end, a skipped turn included. */
export const CAPTURE_WINDOW_SWEEP_MS = 3_000;
const PROCESSING_RECOVERY_SWEEP_MS = 15_000;

/**
 * The checkout: an intent's moves that ask the processor (confirm, capture,
 * cancel), and two rules bound to time: the capture window (void what was
 * not captured in time) and the recovery of intents a dead process left
 * PROCESSING (at start too). Several replicas may run them at once: each
 * move is guarded and each processor call keyed, so an intent moves, and its
 * event is recorded, once.
 */
export const checkoutModule = defineModule({
  key: 'checkout',
  folder: 'flows/checkout',
  layer: 'flow',
  build: ({ processor, logger, settings }) =>
    new CheckoutFlow(processor, logger, { captureWindowSeconds: settings.captureWindowSeconds, overcaptureMaxPercent: settings.overcaptureMaxPercent }),
  operations: checkoutOperations,
  timedRules: (checkout, { settings }) => [
    {
      what: 'authorizations past their capture window voided',
      everyMs: CAPTURE_WINDOW_SWEEP_MS,
      atStart: false,
      run: (db, locationId) => checkout.voidExpiredAuthorizations(db, locationId),
    },
    {
      what: 'payment intents left PROCESSING settled',
      everyMs: PROCESSING_RECOVERY_SWEEP_MS,
      atStart: true,
      run: (db, locationId) => checkout.recoverProcessing(db, settings.processingRecoverySeconds, locationId),
    },
  ],
});
