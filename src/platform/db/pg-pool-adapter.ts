import type { Knex } from 'knex';

/**
 * A library that speaks to PostgreSQL (rate-limiter-flexible does) through a `pg` Pool-like
 * `query({ text, values })` with `$n` placeholders. This adapter runs those
 * statements through Knex instead, so that the library uses the service's own
 * pool, its timeouts and search path, and works on PGlite as on a server.
 */
export function knexAsPgPool(db: Knex): { query(statement: { text: string; values?: unknown[] }): Promise<unknown> } {
  return {
    query: async ({ text, values = [] }) => {
      // `$4` may come before `$3` in the text: bind in the order they appear.
      const bindings: unknown[] = [];
      const sql = text.replace(/\$(\d+)/g, (_match, index: string) => {
        bindings.push(values[Number(index) - 1]);
        return '?';
      });
      const result = (await db.raw(sql, bindings as Knex.RawBinding[])) as { rows: unknown[]; rowCount?: number; affectedRows?: number };
      // pg counts rows in `rowCount`; PGlite's driver says 0 there for a SELECT
      // and counts a DELETE in `affectedRows`.
      return { rows: result.rows, rowCount: Math.max(result.rows.length, result.rowCount ?? 0, result.affectedRows ?? 0) };
    },
  };
}
