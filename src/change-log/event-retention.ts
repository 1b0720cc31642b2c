import type { Knex } from 'knex';
import { runAlone } from '../platform/db/run-alone';
import { purgeEventsBefore } from './event-rows';

const DAY_MS = 24 * 60 * 60 * 1000;
const BATCH = 5000;

/**
 * Deletes events older than `retentionDays` (their webhook deliveries and
 * attempts go with them, by the foreign key), a batch per transaction so no
 * statement holds many locks for long. Each batch runs alone across replicas
 * (an advisory lock): a replica that finds another purging stops, and leaves
 * the rest to it. Answers how many events went.
 */
export async function purgeExpiredEvents(db: Knex, retentionDays: number): Promise<number> {
  const before = new Date(Date.now() - retentionDays * DAY_MS);
  let total = 0;
  for (;;) {
    const purged = await runAlone(db, 'purge-expired-events', (trx) => purgeEventsBefore(trx, before, BATCH));
    if (purged === undefined) return total;
    total += purged;
    if (purged < BATCH) return total;
  }
}
