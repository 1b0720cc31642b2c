import { z } from 'zod';
import { instant } from './instant';
import { uuidValue } from './text.schemas';

/** A page's size, 1 to 100 (10 when left out): an integer in the document as in the service. */
export function pageLimit(items: string) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .meta({ format: 'int32', description: `${items} per page, 1 to 100.`, example: 10 });
}

/** The dates every dated list filters by: declared once, so the document refers to one parameter of each. */
const createdAfter = instant.optional().meta({
  description: 'Only what was made after this instant (ISO 8601, years 0001 to 9999, offsets within ±15:59, at most 9 fraction digits).',
  example: '2026-11-01T00:00:00Z',
  param: { id: 'createdAfter' },
});
const createdBefore = instant.optional().meta({
  description: 'Only what was made before this instant (ISO 8601, years 0001 to 9999, offsets within ±15:59, at most 9 fraction digits).',
  example: '2026-12-01T00:00:00Z',
  param: { id: 'createdBefore' },
});

/**
 * The query of a cursor-paged list, as every list of the API takes it:
 * `limit` (1 to 100, default 10), `startingAfter` (the last id of the
 * previous page), `createdAfter` and `createdBefore`. `items` and `item`
 * name what is listed, for the document; `order` says which way.
 */
export function pageQuery(names: { items: string; item: string }, order: 'oldest first' | 'newest first', example: string) {
  const { items, item } = names;
  return {
    limit: pageLimit(items),
    startingAfter: uuidValue.optional().meta({
      description: `The last ${item} of the previous page (its \`id\`): this page continues after it, ${order}.`,
      example,
    }),
    createdAfter,
    createdBefore,
  };
}
