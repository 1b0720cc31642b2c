import type { Knex } from 'knex';

/**
 * A hot query written once as SQL and run as a named prepared statement: the
 * server parses and plans it once per pooled connection instead of on every
 * request, and Knex's query builder is skipped. On PGlite the name is ignored
 * and the SQL runs as it is. (Behind PgBouncer in transaction mode, named
 * statements need PgBouncer 1.21+ with max_prepared_statements set.)
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const names = new Set<string>();

/** Declares a statement; `text` uses Knex's `?` placeholders. Each name is one text, for every connection. */
export function preparedStatement(name: string, text: string): PreparedStatement {
  // pg refuses a name reused with another text on the same connection: fail at start-up, not under load.
  if (names.has(name)) throw new Error(`prepared statement ${name} is declared twice`);
  names.add(name);
  return { name, text };
}

export async function runPrepared<Row>(
  db: Knex | Knex.Transaction,
  statement: PreparedStatement,
  bindings: readonly Knex.RawBinding[],
): Promise<Row[]> {
  const result = (await db.raw(statement.text, bindings as Knex.RawBinding[]).options({ name: statement.name })) as { rows: Row[] };
  return result.rows;
}
