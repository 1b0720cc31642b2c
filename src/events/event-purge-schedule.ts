import type { Knex } from 'knex';
import type { Logger } from '../platform/logger';
import { purgeDeliveriesBefore } from '../webhooks/webhook-deliveries.repository';
import { purgeExpiredEvents } from './event-retention';

/**
 * Purges events past EVENT_RETENTION_DAYS, and the webhook deliveries kept as
 * long, every `intervalMs` and once shortly after start. Every replica
 * schedules it; one at a time does it (event-retention.ts). The timers are
 * unref'd, so they never hold a stopping process open.
 */
export function scheduleEventPurge(db: Knex, logger: Logger, settings: { retentionDays: number; intervalMs: number }): void {
  const purge = () => {
    purgeExpiredEvents(db, settings.retentionDays, [purgeDeliveriesBefore]).then(
      (purged) => purged > 0 && logger.info({ purged, retentionDays: settings.retentionDays }, 'expired events purged'),
      (error: unknown) => logger.warn({ err: error }, 'purging expired events failed; will retry'),
    );
  };
  setTimeout(purge, 60_000).unref();
  setInterval(purge, settings.intervalMs).unref();
}
