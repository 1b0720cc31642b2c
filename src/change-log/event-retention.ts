import type { Knex } from 'knex';
import { purgeInBatches } from '../platform/lifecycle/purge-in-batches';
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
 * attempts go with them, by the foreign key), in batches (purgeInBatches).
 * Each batch runs alone across replicas (an advisory lock): a replica that
 * finds another purging stops, and leaves the rest to it. Answers how many
 * events went.
 */
export async function purgeExpiredEvents(db: Knex, retentionDays: number, onBatch?: (purged: number, heldMs: number) => void): Promise<number> {
  const before = new Date(Date.now() - retentionDays * DAY_MS);
  return purgeInBatches(PURGE_BATCH, (limit) => runAlone(db, 'purge-expired-events', (trx) => purgeEventsBefore(trx, before, limit)), onBatch);
}
