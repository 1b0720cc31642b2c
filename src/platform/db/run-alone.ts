import type { Knex } from 'knex';

/**
 * Runs `work` in a transaction holding a PostgreSQL advisory lock named
 * `name`, if no other session holds it; undefined (without running it) if
 * one does. For housekeeping every replica schedules but only one should do
 * at a time: the others skip rather than wait or race. The lock ends with the
 * transaction, so a crashed holder never leaves it taken.
 */
export async function runAlone<T>(db: Knex, name: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T | undefined> {
  return db.transaction(async (trx) => {
    const { rows } = (await trx.raw('select pg_try_advisory_xact_lock(hashtext(?)) as taken', [name])) as { rows: Array<{ taken: boolean }> };
    if (rows[0]?.taken !== true) return undefined;
    return work(trx);
  });
}
