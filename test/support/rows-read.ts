import type { Knex } from 'knex';

/**
 * Rows PostgreSQL's own counters say were read from each of `tables` so
 * far, by sequential and index scans (pg_stat_user_tables). The session's
 * counters are reported when it is next idle, and only once a second
 * unless forced: forced first. Read on a pool of one connection, so the
 * counts are the session's that ran the statements.
 */
export async function rowsRead(knex: Knex, tables: readonly string[]): Promise<Record<string, number>> {
  await knex.raw('select pg_stat_force_next_flush()');
  const { rows } = await knex.raw<{ rows: Array<{ relname: string; read: string }> }>(
    `select relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as read
       from pg_stat_user_tables where relname in (${tables.map(() => '?').join(', ')})`,
    [...tables],
  );
  return Object.fromEntries(tables.map((table) => [table, Number(rows.find((row) => row.relname === table)?.read ?? 0)]));
}

/** What each table's count grew by between two readings of rowsRead. */
export function rowsReadSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((table) => [table, (after[table] ?? 0) - (before[table] ?? 0)]));
}
