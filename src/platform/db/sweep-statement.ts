import type { Knex } from 'knex';
import { preparedStatement, runPrepared, type PreparedStatement } from './prepared-statement';

/**
 * A sweep's query (what is due, oldest first, a batch at a time), across
 * every location or at one (a sandbox clock's rules, src/flows/sandbox-clock):
 * one SQL, the second with `and location_id = ?`, prepared under names of their own.
 */
export interface SweepStatement {
  across: PreparedStatement;
  at: PreparedStatement;
}

/** `select … from …` where `due` holds, `order by` `oldestFirst`, `limit ?`. */
export function sweepStatement(name: string, select: string, due: string, oldestFirst: string): SweepStatement {
  return {
    across: preparedStatement(name, `${select} where ${due} order by ${oldestFirst} limit ?`),
    at: preparedStatement(`${name}_at`, `${select} where ${due} and location_id = ? order by ${oldestFirst} limit ?`),
  };
}

/** Its rows across locations, or at `locationId`: the statement's own `values`, then the location if any, then the limit. */
export function runSweep<Row>(db: Knex, statement: SweepStatement, values: readonly Knex.RawBinding[], limit: number, locationId?: string): Promise<Row[]> {
  return locationId === undefined
    ? runPrepared<Row>(db, statement.across, [...values, limit])
    : runPrepared<Row>(db, statement.at, [...values, locationId, limit]);
}
