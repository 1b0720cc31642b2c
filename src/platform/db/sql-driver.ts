import type { Knex } from 'knex';
import { copyPlainQueryConfigsBySpread } from './pg-query-config';
import { keepResultShapes } from './pg-result-shapes';

/**
 * How a prepared statement reaches the database on a pooled connection: the
 * driver's own call, without Knex's builder and runner (docs/performance-history.md,
 * Prepared statements). Chosen once in database.ts for the database in use
 * and kept in Knex's public `userParams`; the connection comes from Knex's
 * pool through its declared `acquireConnection` and `releaseConnection`.
 */
export interface SqlDriver {
  /** Whether statements are sent by name (planned once per connection); not behind PgBouncer in transaction mode. */
  readonly namedStatements: boolean;
  query<Row>(connection: unknown, statement: DriverStatement, values: readonly unknown[]): Promise<DriverResult<Row>>;
}

/** What a statement brought back: its rows, and how many rows it returned or changed (a DELETE without RETURNING has none to show). */
export interface DriverResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** A statement as the driver sends it (prepared-statement.ts declares them). */
export interface DriverStatement {
  readonly name: string;
  /** With PostgreSQL's `$n` placeholders, as the driver takes it. */
  readonly positionalText: string;
  /**
   * Sent without its name, so the server plans it on every run. For a
   * statement over a queue (the outbox, the deliveries), which swings from
   * empty to a backlog between two ANALYZEs: a plan kept from when it was
   * empty reads the whole backlog on every run (docs/decisions.md).
   */
  readonly planEachRun?: true;
}

/** Whether `statement` goes to the server under its name (planned once per connection) with `driver`. */
export function sentByName(driver: { namedStatements: boolean }, statement: DriverStatement): boolean {
  return driver.namedStatements && statement.planEachRun !== true;
}

interface PgConnection {
  query(config: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** node-postgres: `query({ name, text, values })`, the name dropped behind PgBouncer. */
export function pgDriver(options: { namedStatements: boolean }): SqlDriver {
  copyPlainQueryConfigsBySpread();
  keepResultShapes();
  return {
    namedStatements: options.namedStatements,
    async query<Row>(connection: unknown, statement: DriverStatement, values: readonly unknown[]): Promise<DriverResult<Row>> {
      const config = sentByName(options, statement)
        ? { name: statement.name, text: statement.positionalText, values }
        : { text: statement.positionalText, values };
      const { rows, rowCount } = await (connection as PgConnection).query(config);
      return { rows: rows as Row[], rowCount: rowCount ?? rows.length };
    },
  };
}

interface PgliteConnection {
  query(text: string, values: readonly unknown[]): Promise<{ rows: unknown[]; affectedRows?: number }>;
}

/** PGlite: one connection, its own `query(text, values)`; a name would mean nothing to it. */
export const pgliteDriver: SqlDriver = {
  namedStatements: false,
  async query<Row>(connection: unknown, statement: DriverStatement, values: readonly unknown[]): Promise<DriverResult<Row>> {
    const { rows, affectedRows } = await (connection as PgliteConnection).query(statement.positionalText, values);
    // PGlite counts a write's rows in `affectedRows`, and says 0 there for a SELECT.
    return { rows: rows as Row[], rowCount: Math.max(rows.length, affectedRows ?? 0) };
  },
};

/** Knex takes `userParams` in its configuration (the documented `knex.userParams`) and keeps them on its client's. */
type ConfigWithParams = Knex.Config & { userParams?: Record<string, unknown> };

/** The Knex configuration that carries `driver` to every statement run on it. */
export function withSqlDriver(driver: SqlDriver, config: ConfigWithParams): ConfigWithParams {
  return { ...config, userParams: { ...config.userParams, sqlDriver: driver } };
}

/** The driver a database was opened with; a transaction shares its client's configuration. */
export function sqlDriverOf(db: Knex | Knex.Transaction): SqlDriver {
  const driver = (db.client.config as ConfigWithParams).userParams?.sqlDriver as SqlDriver | undefined;
  if (driver === undefined) throw new Error('this database was not opened with a SQL driver (openDatabase or withSqlDriver)');
  return driver;
}
