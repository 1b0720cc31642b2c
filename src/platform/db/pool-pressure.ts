import type { Knex } from 'knex';

interface TarnPool {
  max: number;
  numPendingAcquires(): number;
  numUsed(): number;
  numFree(): number;
}

/** The pool's connections as the metrics show them; undefined before Knex has made its pool. */
export interface PoolCounts {
  max: number;
  used: number;
  free: number;
  pending: number;
}

export function poolCounts(db: Knex): PoolCounts | undefined {
  const pool = (db.client as { pool?: TarnPool }).pool;
  if (pool === undefined) return undefined;
  return { max: pool.max, used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
}

/**
 * Whether requests are waiting for a pooled connection, or every one is in use: then
 * housekeeping (a sweep) skips its turn rather than take a connection a
 * request needs. It runs again at its next turn; what it would have done is
 * never urgent to the millisecond.
 */
export function poolIsBusy(db: Knex): boolean {
  const pool = (db.client as { pool?: TarnPool }).pool;
  if (pool === undefined) return false;
  return pool.numPendingAcquires() > 0 || pool.numUsed() >= pool.max;
}
