import type { Knex } from 'knex';
import type { Logger } from '../platform/logger';
import { purgeExpiredIdempotencyKeys } from './idempotency-keys.repository';

/**
 * Deletes expired Idempotency-Keys every `intervalMs`. Expired keys are never
 * replayed whether or not they are purged yet; this only keeps the table small.
 * Several replicas purging at once is harmless. The timer is unref'd, so it
 * never holds a stopping process open.
 */
export function scheduleIdempotencyKeyPurge(db: Knex, logger: Logger, intervalMs: number): void {
  const timer = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).then(
      (purged) => purged > 0 && logger.info({ purged }, 'expired idempotency keys purged'),
      (error: unknown) => logger.warn({ err: error }, 'purging expired idempotency keys failed; will retry'),
    );
  }, intervalMs);
  timer.unref();
}
