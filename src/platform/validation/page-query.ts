import { z } from 'zod';
import { instant } from './instant';
import { int32 } from './int32';
import { uuidValue } from './text.schemas';

/**
 * The query of a cursor-paged list, as every list of the API takes it:
 * `limit` (1 to 100, default 10), `startingAfter` (the last id of the
 * previous page), and when `dated`, `createdAfter` and `createdBefore`.
 * `items` and `item` name what is listed, for the document; `order` says which way.
 */
export function pageQuery(names: { items: string; item: string }, order: 'oldest first' | 'newest first', example: string) {
  const { items, item } = names;
  return {
    limit: z.coerce
      .number()
      .pipe(int32(1, 100))
      .default(10)
      .meta({ description: `${items} per page, 1 to 100.`, example: 10 }),
    startingAfter: uuidValue.optional().meta({
      description: `The last ${item} of the previous page (its \`id\`): this page continues after it, ${order}.`,
      example,
    }),
    createdAfter: instant.optional().meta({ description: `Only ${items.toLowerCase()} made after this instant (ISO 8601, years 0001 to 9999, offsets within ±15:59, at most 9 fraction digits).`, example: '2026-11-01T00:00:00Z' }),
    createdBefore: instant.optional().meta({ description: `Only ${items.toLowerCase()} made before this instant (ISO 8601, years 0001 to 9999, offsets within ±15:59, at most 9 fraction digits).`, example: '2026-12-01T00:00:00Z' }),
  };
}
