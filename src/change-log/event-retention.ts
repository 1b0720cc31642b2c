import type { Knex } from 'knex';
import { runAlone } from '../platform/db/run-alone';
import { purgeEventsBefore } from './event-rows';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Events a purge transaction deletes (with their deliveries and attempts):
 * small enough that its transaction, which holds the rows' locks, stays well
 * under 100 ms on the bench's machine (docs/performance.md, Growth).
 */
export const PURGE_BATCH = 1000;

/**
 * Deletes events older than `retentionDays` (their webhook deliveries and
 * attempts go with them, by the foreign key), a batch per transaction so no
 * statement holds many locks for long. Each batch runs alone across replicas
 * (an advisory lock): a replica that finds another purging stops, and leaves
 * the rest to it. Answers how many events went; `onBatch` hears of each
 * batch and how long its transaction held its rows (the benchmark's measure).
 * Between batches it pauses as long as the last one took, so that a purge of
 * millions gives the API at least half of the database's time.
 */
export async function purgeExpiredEvents(
  db: Knex,
  retentionDays: number,
  onBatch: (purged: number, heldMs: number) => void = () => undefined,
): Promise<number> {
  const before = new Date(Date.now() - retentionDays * DAY_MS);
  let total = 0;
  for (;;) {
    const started = performance.now();
    const purged = await runAlone(db, 'purge-expired-events', (trx) => purgeEventsBefore(trx, before, PURGE_BATCH));
    if (purged === undefined) return total;
    const heldMs = performance.now() - started;
    onBatch(purged, heldMs);
    total += purged;
    if (purged < PURGE_BATCH) return total;
    await new Promise((resolve) => setTimeout(resolve, heldMs));
  }
}
