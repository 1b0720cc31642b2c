import type { Knex } from 'knex';
import { runStatement } from './prepared-statement';

/** A statement as a `pg` Pool-like caller sends it: `$n` placeholders, and a name when it should be prepared. */
interface PoolQuery {
  name?: string;
  text: string;
  values?: unknown[];
}

/**
 * A library that speaks to PostgreSQL (rate-limiter-flexible does) through a
 * `pg` Pool-like `query({ name, text, values })`. This adapter runs those
 * statements on the service's own pool with the driver's own call
 * (prepared-statement.ts), so the library gets the pool's timeouts and
 * search path, works on PGlite as on a server, and pays no Knex runner (a
 * new location's rate limit lease went through Knex's `raw`:
 * docs/performance-history.md). A named statement is prepared once per connection,
 * as the library asks (never behind PgBouncer); one without a name is
 * planned on every run.
 */
export function knexAsPgPool(db: Knex): { query(statement: PoolQuery): Promise<{ rows: unknown[]; rowCount: number }> } {
  return {
    query: ({ name, text, values = [] }) =>
      runStatement(db, name === undefined ? { name: 'unnamed', positionalText: text, planEachRun: true } : { name, positionalText: text }, values),
  };
}
