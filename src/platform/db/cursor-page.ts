import type { Knex } from 'knex';

/** A cursor-paged list's query, as every list of the API takes it (platform/validation/page-query.ts). */
export interface PageQuery {
  limit: number;
  /** The last id of the previous page. */
  startingAfter?: string;
  createdAfter?: string;
  createdBefore?: string;
}

/**
 * One page of rows keyed by UUIDv7 `id`: ids are time-ordered, so id order
 * is creation order and the cursor is the last id seen (`asc`: oldest first,
 * `desc`: newest first). One more row than the page is read to tell whether
 * more follow. `rows` is the query with its own filters, not yet ordered.
 */
export async function cursorPage<Row>(rows: Knex.QueryBuilder, page: PageQuery, order: 'asc' | 'desc'): Promise<{ rows: Row[]; hasMore: boolean }> {
  if (page.startingAfter !== undefined) rows.where('id', order === 'asc' ? '>' : '<', page.startingAfter);
  if (page.createdAfter !== undefined) rows.where('created_at', '>', page.createdAfter);
  if (page.createdBefore !== undefined) rows.where('created_at', '<', page.createdBefore);
  const found = (await rows.orderBy('id', order).limit(page.limit + 1)) as Row[];
  return { rows: found.slice(0, page.limit), hasMore: found.length > page.limit };
}
