import type { Knex } from 'knex';

/** What pg_stat_user_tables counts of a table: the rows its scans read, and the index scans begun on it. */
const COUNTERS = {
  rowsRead: 'coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)',
  indexScans: 'coalesce(idx_scan, 0)',
} as const;

/**
 * A counter of PostgreSQL's own for each of `tables` so far. The session's
 * counters are reported when it is next idle, and only once a second
 * unless forced: forced first. Read on a pool of one connection, so the
 * counts are the session's that ran the statements; in the test's own
 * schema, as test files on the server share a database (test-database.ts).
 */
async function tableCounter(knex: Knex, counter: keyof typeof COUNTERS, tables: readonly string[]): Promise<Record<string, number>> {
  await knex.raw('select pg_stat_force_next_flush()');
  const { rows } = await knex.raw<{ rows: Array<{ relname: string; count: string }> }>(
    `select relname, ${COUNTERS[counter]} as count from pg_stat_user_tables where schemaname = current_schema() and relname in (${tables.map(() => '?').join(', ')})`,
    [...tables],
  );
  return Object.fromEntries(tables.map((table) => [table, Number(rows.find((row) => row.relname === table)?.count ?? 0)]));
}

/** Rows read from each of `tables` so far, by sequential and index scans. */
export const rowsRead = (knex: Knex, tables: readonly string[]) => tableCounter(knex, 'rowsRead', tables);

/** Index scans begun on each of `tables` so far: one per index descent. */
export const indexScans = (knex: Knex, tables: readonly string[]) => tableCounter(knex, 'indexScans', tables);

/** What each table's count grew by between two readings. */
export function countedSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((table) => [table, (after[table] ?? 0) - (before[table] ?? 0)]));
}
