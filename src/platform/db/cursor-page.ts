import type { Knex } from 'knex';
import { clockOffsetMs } from '../clock/location-clock';

/** A cursor-paged list's query, as every list of the API takes it (platform/validation/page-query.ts). */
export interface PageQuery {
  limit: number;
  /** The last id of the previous page. */
  startingAfter?: string;
  createdAfter?: string;
  createdBefore?: string;
}

/**
 * How far a row's `created_at` may lie from the time in its UUIDv7 id, in
 * real time: the id is made in the process, `created_at` is its
 * transaction's `now()`, and no transaction of the service lives this long
 * (statements time out after DB_STATEMENT_TIMEOUT_MS, requests after
 * REQUEST_TIMEOUT_MS). A sandbox clock adds its offset (docs/decisions.md,
 * Date filters read the id's time).
 */
export const CREATED_AT_FROM_ID_TIME_MS = 60_000;

/**
 * The Unix milliseconds of a validated instant (platform/validation/instant.ts),
 * floored: its fraction cut to milliseconds, which only moves it earlier.
 */
function floorMs(instant: string): number {
  return Date.parse(instant.replace(/(\.\d{3})\d+/, '$1'));
}

/**
 * The smallest UUIDv7 of millisecond `ms`: every id made at that millisecond
 * or later sorts at or after it, since a UUIDv7 begins with its Unix time in
 * milliseconds. A value, not SQL, so that the planner weighs the bound by the
 * ids' statistics (an expression it cannot fold weighed a third of the table,
 * and a day's window once went to the index by date and a sort).
 */
function firstIdAt(ms: number): string {
  const hex = Math.min(Math.max(0, Math.floor(ms)), 2 ** 48 - 1)
    .toString(16)
    .padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/**
 * Narrows `rows` to the page's window: after the cursor, and between the
 * dates. A date bound is also a bound on the id, which the list's index is
 * ordered by: without it, a list with `createdBefore` newest first (or
 * `createdAfter` oldest first) would read every row on the far side of the
 * date only to drop it, however long the history. The id bound is widened by
 * CREATED_AT_FROM_ID_TIME_MS (and, after a date, by the location's sandbox
 * clock offset, which dates later rows ahead of their ids), so it never drops
 * a row the date keeps; `created_at` then decides exactly, written `is true`
 * so that the planner does not read the events' index by date (the purge's)
 * and sort a day of every location's events, as it once chose to: the id
 * bound picks the index, read in the page's order.
 */
export function withinPage(rows: Knex.QueryBuilder, page: PageQuery, order: 'asc' | 'desc'): Knex.QueryBuilder {
  if (page.startingAfter !== undefined) rows.where('id', order === 'asc' ? '>' : '<', page.startingAfter);
  if (page.createdAfter !== undefined) {
    rows.whereRaw('(created_at > ?) is true', [page.createdAfter]);
    const after = floorMs(page.createdAfter);
    if (!Number.isNaN(after)) rows.where('id', '>=', firstIdAt(after - CREATED_AT_FROM_ID_TIME_MS - clockOffsetMs()));
  }
  if (page.createdBefore !== undefined) {
    rows.whereRaw('(created_at < ?) is true', [page.createdBefore]);
    const before = floorMs(page.createdBefore);
    if (!Number.isNaN(before)) rows.where('id', '<', firstIdAt(before + CREATED_AT_FROM_ID_TIME_MS + 1));
  }
  return rows;
}

/** A page read with one row more than asked for: the page, and whether more follow. */
export function pageOf<Row>(found: readonly Row[], limit: number): { rows: Row[]; hasMore: boolean } {
  return { rows: found.slice(0, limit), hasMore: found.length > limit };
}

/**
 * One page of rows keyed by UUIDv7 `id`: ids are time-ordered, so id order
 * is creation order and the cursor is the last id seen (`asc`: oldest first,
 * `desc`: newest first). One more row than the page is read to tell whether
 * more follow. `rows` is the query with its own filters, not yet ordered.
 */
export async function cursorPage<Row>(rows: Knex.QueryBuilder, page: PageQuery, order: 'asc' | 'desc'): Promise<{ rows: Row[]; hasMore: boolean }> {
  const found = (await withinPage(rows, page, order)
    .orderBy('id', order)
    .limit(page.limit + 1)) as Row[];
  return pageOf(found, page.limit);
}

/**
 * cursorPage over the rows whose `column` holds any of `values`, read from
 * an index that leads with the list's own filters, then `column`, then `id`:
 * a page per value, each in id order, and the first of them all kept. A rare
 * value costs a page however many rows hold the others, where one walk in id
 * order would read them all to find it. `rows` is the query with its own
 * filters (one table, unaliased), not yet ordered.
 */
export async function cursorPageAcross<Row>(
  db: Knex,
  rows: Knex.QueryBuilder,
  column: string,
  values: readonly string[],
  page: PageQuery,
  order: 'asc' | 'desc',
): Promise<{ rows: Row[]; hasMore: boolean }> {
  const ofValue = withinPage(rows.whereRaw('?? = one_of.value', [column]), page, order)
    .orderBy('id', order)
    .limit(page.limit + 1);
  const found = (await db
    .select('of_value.*')
    .from(db.raw('unnest(?::text[]) as one_of(value)', [[...values]]))
    .joinRaw('cross join lateral ? as of_value', [db.raw('?', [ofValue])])
    .orderBy('of_value.id', order)
    .limit(page.limit + 1)) as Row[];
  return pageOf(found, page.limit);
}
