import type { Knex } from 'knex';

/**
 * Rows of every table of the current schema holding `value` anywhere in them,
 * every column and every JSON path (a row's text form holds them all): what
 * an erasure or a secret-at-rest test searches.
 */
export async function rowsHolding(knex: Knex, value: string): Promise<Array<{ table: string; count: number }>> {
  const { rows: tables } = (await knex.raw(
    "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
  )) as { rows: Array<{ table_name: string }> };
  const found: Array<{ table: string; count: number }> = [];
  for (const { table_name: table } of tables) {
    const { rows } = (await knex.raw(`select count(*)::int as count from "${table}" t where t::text like ?`, [`%${value}%`])) as {
      rows: Array<{ count: number }>;
    };
    if ((rows[0]?.count ?? 0) > 0) found.push({ table, count: rows[0]?.count ?? 0 });
  }
  return found;
}
