import type { Knex } from 'knex';
import { poolIsBusy } from '../../platform/db/pool-pressure';
import { RepeatingTask } from '../../platform/lifecycle/repeating-task';
import type { Logger } from '../../platform/logger';
import type { CheckoutFlow } from './checkout.flow';

export interface CheckoutSweepSettings {
  /** PROCESSING_RECOVERY_SECONDS: an intent PROCESSING longer than this is settled by asking the processor again. */
  processingRecoverySeconds: number;
}

/** Often enough that an authorization is voided within 10 s of its capture window's end, a skipped turn included. */
export const CAPTURE_WINDOW_SWEEP_MS = 3_000;
const PROCESSING_RECOVERY_SWEEP_MS = 15_000;

/**
 * The two sweeps every replica runs: the capture window (void what was not
 * captured in time) and the recovery of intents a dead process left
 * PROCESSING (at start, then on a schedule). Several replicas may sweep at
 * once: each move is guarded and each processor call keyed, so an intent
 * moves, and its event is recorded, once.
 */
export function checkoutSweeps(db: Knex, checkout: CheckoutFlow, logger: Logger, settings: CheckoutSweepSettings): { start(): void; stop(): Promise<void> } {
  // A turn is skipped while requests wait for a connection: the sweeps never take one a request needs.
  const unlessBusy = (work: () => Promise<number>) => () => (poolIsBusy(db) ? Promise.resolve(0) : work());
  const captureWindow = new RepeatingTask(
    logger,
    'authorizations past their capture window voided',
    CAPTURE_WINDOW_SWEEP_MS,
    unlessBusy(() => checkout.voidExpiredAuthorizations(db)),
  );
  const recovery = new RepeatingTask(
    logger,
    'payment intents left PROCESSING settled',
    PROCESSING_RECOVERY_SWEEP_MS,
    unlessBusy(() => checkout.recoverProcessing(db, settings.processingRecoverySeconds)),
  );
  return {
    start() {
      captureWindow.start({ atStart: false });
      recovery.start({ atStart: true });
    },
    async stop() {
      await Promise.all([captureWindow.stop(), recovery.stop()]);
    },
  };
}
