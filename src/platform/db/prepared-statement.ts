import type { Knex } from 'knex';
import { clockOffsetMs } from '../clock/location-clock';
import { sqlDriverOf, type DriverResult, type DriverStatement } from './sql-driver';

/**
 * A hot query written once as SQL and run as a named prepared statement: the
 * server parses and plans it once per pooled connection instead of on every
 * request, and Knex's query builder and runner are skipped. On PGlite the
 * name is ignored and the SQL runs as it is. Behind PgBouncer in transaction
 * mode (DB_POOLER=pgbouncer) the name is dropped: a named statement lives on
 * one server connection, which the next transaction may not get (PgBouncer
 * 1.21+ with max_prepared_statements could keep them; Debian's 1.18 cannot).
 */
export interface PreparedStatement extends DriverStatement {
  /** As written, with Knex's `?` placeholders: what another statement builds on, and the clocked twin is made from. */
  readonly text: string;
}

/** What a statement's placeholder takes: a JS array goes to the driver as it is, which sends it as a PostgreSQL array. */
export type Binding = Knex.RawBinding | readonly string[];

const names = new Set<string>();

/** `?` to `$1`, `$2`, ... as Knex's PostgreSQL client does it (a `\?` stays a literal `?`). */
function positional(text: string): string {
  let count = 0;
  return text.replace(/(\\*)\?/g, (_match, escapes: string) => (escapes.length % 2 === 1 ? '?' : `$${++count}`));
}

/** Declares a statement; `text` uses Knex's `?` placeholders. Each name is one text, for every connection. */
export function preparedStatement(name: string, text: string, options: Pick<DriverStatement, 'planEachRun'> = {}): PreparedStatement {
  // pg refuses a name reused with another text on the same connection: fail at start-up, not under load.
  if (names.has(name)) throw new Error(`prepared statement ${name} is declared twice`);
  names.add(name);
  return { name, text, positionalText: positional(text), ...options };
}

/**
 * Runs a statement with the driver's own call (sql-driver.ts), on a pooled
 * connection or on the one a transaction holds, on the location's clock
 * (`onClock`): Knex's query builder, runner and binding rewrites cost more
 * CPU than the driver itself on the hottest paths (docs/performance.md).
 */
export async function runPrepared<Row>(db: Knex | Knex.Transaction, given: PreparedStatement, givenBindings: readonly Binding[]): Promise<Row[]> {
  const offsetMs = clockOffsetMs();
  const { statement, bindings } = offsetMs === 0 ? { statement: given, bindings: givenBindings } : onClock(given, givenBindings, offsetMs);
  return (await runStatement<Row>(db, statement, bindings)).rows;
}

/**
 * Runs a statement as the driver takes it, `$n` placeholders and all, as it
 * is. Knex's `query` and `query-error` events are still emitted (a
 * transaction's go to its pool's client too), and a transaction that has
 * ended refuses the statement as Knex's own runner does, so that it never
 * runs on a connection back in the pool.
 */
export async function runStatement<Row>(db: Knex | Knex.Transaction, statement: DriverStatement, bindings: readonly unknown[]): Promise<DriverResult<Row>> {
  const driver = sqlDriverOf(db);
  const { client } = db;
  if (client.listenerCount('query') > 0) client.emit('query', { method: 'raw', sql: statement.positionalText, bindings, options: {} });
  // A transaction's client hands out the connection the transaction holds, and takes nothing back.
  const connection: unknown = await client.acquireConnection();
  try {
    if (db.isTransaction === true && (db as Knex.Transaction).isCompleted()) {
      throw new Error(`Transaction query already complete: ${statement.name}`);
    }
    return await driver.query<Row>(connection, statement, bindings);
  } catch (error) {
    // Knex's own event, as its runner emits it: database.ts listens to follow a failover (a read-only refusal,
    // a lost server), and the pool then replaces the connections made before.
    client.emit('query-error', error, { method: 'raw', sql: statement.positionalText, bindings, options: {} });
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A statement's text on a location's clock: each `now()` moved ahead by a bound offset; which placeholders are that offset. */
interface ClockedStatement {
  statement: PreparedStatement;
  offsetAt: readonly boolean[];
}

const clocked = new WeakMap<PreparedStatement, ClockedStatement>();

/**
 * The statement as it runs for a location whose sandbox clock is ahead of
 * real time (src/platform/clock/location-clock.ts): every `now()` becomes
 * `now()` plus the offset, bound like any value, so every time the statement
 * writes or compares is the location's. Made once per statement, prepared
 * under a name of its own; a statement with no `now()` runs as it is.
 */
function onClock(statement: PreparedStatement, bindings: readonly Binding[], offsetMs: number) {
  let variant = clocked.get(statement);
  if (variant === undefined) {
    const offsetAt: boolean[] = [];
    const text = statement.text.replace(/(\\*)\?|\bnow\(\)/g, (match: string, escapes: string | undefined) => {
      if (match.endsWith('?')) {
        if ((escapes ?? '').length % 2 === 0) offsetAt.push(false);
        return match;
      }
      offsetAt.push(true);
      return "(now() + ?::bigint * interval '1 millisecond')";
    });
    variant = {
      statement: offsetAt.includes(true) ? { ...statement, name: `${statement.name}__on_clock`, text, positionalText: positional(text) } : statement,
      offsetAt,
    };
    clocked.set(statement, variant);
  }
  if (variant.statement === statement) return { statement, bindings };
  let next = 0;
  return { statement: variant.statement, bindings: variant.offsetAt.map((isOffset) => (isOffset ? offsetMs : (bindings[next++] as Binding))) };
}

/**
 * A statement composed of parts from more than one file (a write and the
 * events it records, a consumer of the outbox): each part names what it binds
 * (`@name`), so no list of bindings in an order another file decides crosses
 * a file. A literal `?` (a jsonb operator) stays a `?`. A name may appear
 * more than once; it is bound each time.
 */
export interface NamedStatement extends PreparedStatement {
  /** The names, in the order the SQL uses them (one per use). */
  readonly params: readonly string[];
}

export function namedStatement(name: string, text: string, options: Pick<DriverStatement, 'planEachRun'> = {}): NamedStatement {
  const params: string[] = [];
  const withPlaceholders = text.replace(/\?/g, '\\?').replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_match, param: string) => {
    params.push(param);
    return '?';
  });
  return { ...preparedStatement(name, withPlaceholders, options), params };
}

/** Runs a named statement with a value for each of its names; a missing one is a programming error, thrown before anything runs. */
export function runNamed<Row>(db: Knex | Knex.Transaction, statement: NamedStatement, values: Readonly<Record<string, Binding>>): Promise<Row[]> {
  const bindings = statement.params.map((param) => {
    const value = values[param];
    if (value === undefined) throw new Error(`statement ${statement.name} has no value for @${param}`);
    return value;
  });
  return runPrepared<Row>(db, statement, bindings);
}
