import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

const current = new AsyncLocalStorage<Knex.Transaction>();

/**
 * Runs `work` with `transaction` as the database of every service call it
 * makes. An idempotent create uses this to commit the record it makes and the
 * answer it stores for the Idempotency-Key together, or neither.
 */
export function runInTransaction<T>(transaction: Knex.Transaction, work: () => Promise<T>): Promise<T> {
  return current.run(transaction, work);
}

/** The transaction the current call runs in, if any; else `db`. Services read their database through this. */
export function inCurrentTransaction(db: Knex): Knex {
  return current.getStore() ?? db;
}
