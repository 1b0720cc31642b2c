import type { Knex } from 'knex';

/** Whether `db` is a transaction (a request's Idempotency-Key claim) rather than the pool. */
export function isInTransaction(db: Knex): boolean {
  return db.isTransaction === true;
}

/**
 * Runs `work` in a transaction: the one `db` already is (a request's
 * Idempotency-Key claim), or a new one. Never a savepoint, which would cost
 * two more round trips for nothing: a failure rolls the whole request back anyway.
 */
export function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.isTransaction === true ? work(db as Knex.Transaction) : db.transaction(work);
}

/**
 * Runs `then` once what `db` wrote is committed: at once on the pool (each
 * statement commits on its own), after the commit of a transaction, never
 * after a rollback by an error (the way inTransaction and every transaction
 * of the service end without committing). For signals to this process's listeners (the webhook
 * dispatcher), which must not look before the rows are visible.
 */
export function afterCommit(db: Knex, then: () => void): void {
  if (db.isTransaction !== true) {
    then();
    return;
  }
  (db as Knex.Transaction).executionPromise.then(then, () => undefined);
}
