import type { Knex } from 'knex';

/**
 * Runs `work` in a transaction: the one `db` already is (a request's
 * Idempotency-Key claim), or a new one. Never a savepoint, which would cost
 * two more round trips for nothing: a failure rolls the whole request back anyway.
 */
export function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.isTransaction === true ? work(db as Knex.Transaction) : db.transaction(work);
}
