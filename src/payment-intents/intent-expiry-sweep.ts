import type { Knex } from 'knex';
import { poolIsBusy } from '../platform/db/pool-pressure';
import { RepeatingTask } from '../platform/lifecycle/repeating-task';
import type { Logger } from '../platform/logger';
import type { PaymentIntentsService } from './payment-intents.service';

/** Often enough that an intent expires within a minute of its deadline, a skipped turn or two included. */
export const INTENT_EXPIRY_SWEEP_MS = 15_000;

/**
 * The sweep every replica runs: unpaid intents past INTENT_EXPIRY_HOURS
 * canceled. Several replicas may sweep at once: each move is guarded, so an
 * intent expires, and its event is recorded, once.
 */
export function intentExpirySweep(db: Knex, paymentIntents: PaymentIntentsService, logger: Logger): { start(): void; stop(): Promise<void> } {
  const task = new RepeatingTask(logger, 'unpaid payment intents expired', INTENT_EXPIRY_SWEEP_MS, () =>
    // Skipped while requests wait for a connection: the sweep never takes one a request needs.
    poolIsBusy(db) ? Promise.resolve(0) : paymentIntents.expireDue(db),
  );
  return {
    start: () => task.start({ atStart: true }),
    stop: () => task.stop(),
  };
}
