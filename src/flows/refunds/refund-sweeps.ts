import type { Knex } from 'knex';
import { poolIsBusy } from '../../platform/db/pool-pressure';
import { RepeatingTask } from '../../platform/lifecycle/repeating-task';
import type { Logger } from '../../platform/logger';
import type { RefundFlow } from './refund.flow';

/** How often PENDING refunds are asked about: a refund the processor settles is seen settled within this of it. */
export const REFUND_SWEEP_MS = 1_000;
/** A refund its own request is still settling is left to it: only those PENDING at least this long are swept. */
const LEFT_ALONE_SECONDS = 1;

/**
 * How long the sandbox keeps a refund it answers later pending, for the
 * service to record it SUCCEEDED within SANDBOX_ASYNC_REFUND_SECONDS: the
 * sweep first leaves a refund alone for a second, then asks once a second.
 */
export function sandboxRefundSettlesAfterMs(asyncRefundSeconds: number): number {
  return Math.max(0, asyncRefundSeconds * 1000 - LEFT_ALONE_SECONDS * 1000 - REFUND_SWEEP_MS);
}

/**
 * The sweep every replica runs: PENDING refunds (answered later by the
 * processor, or whose answer was lost) asked about again. Several replicas
 * may sweep at once: each refund's move is guarded and each processor call
 * keyed by the refund's id, so a refund moves, and its event is recorded, once.
 */
export function refundSweeps(db: Knex, refund: RefundFlow, logger: Logger): { start(): void; stop(): Promise<void> } {
  const task = new RepeatingTask(logger, 'PENDING refunds settled', REFUND_SWEEP_MS, () =>
    // Skipped while requests wait for a connection: the sweep never takes one a request needs.
    poolIsBusy(db) ? Promise.resolve(0) : refund.settlePending(db, LEFT_ALONE_SECONDS),
  );
  return {
    start: () => task.start({ atStart: true }),
    stop: () => task.stop(),
  };
}
