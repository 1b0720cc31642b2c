import { z } from 'zod';
import { instant } from './instant';
import { uuidValue } from './text.schemas';

/** The largest page, and the size of a page when `limit` is left out. */
const MAX_PAGE = 100;
const DEFAULT_PAGE = 10;

/** A page's size, 1 to 100 (10 when left out): an integer in the document as in the service. */
export function pageLimit(items: string) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE)
    .default(DEFAULT_PAGE)
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

/**
 * What every list's description says of its paging, in the same words:
 * its order, the page size, how to ask for the next page, and which cursor
 * is refused (`cursorOf`: "a customer of this location").
 */
export function pagingProse(order: 'oldest first' | 'newest first', cursorOf: string): string {
  const sentence = `${order.charAt(0).toUpperCase()}${order.slice(1)}`;
  return `${sentence}, \`limit\` per page (default ${DEFAULT_PAGE}, at most ${MAX_PAGE}): when \`hasMore\` is true, ask again with \`startingAfter\` set to the last \`id\` of the page. A \`startingAfter\` that is not ${cursorOf} is a 400.`;
}

/**
 * A page of a list, as every list answers it: `results` (the page's
 * length), the items under `key`, and `hasMore`; the document's words for
 * each are the same in every list.
 */
export function pageOf<Key extends string, Item extends z.ZodType>(
  key: Key,
  item: Item,
  words: { items: string; order: string },
  meta: { id: string; example: Record<string, unknown> },
) {
  const items = {
    [key]: z
      .array(item)
      .max(MAX_PAGE)
      .meta({ description: `${words.order}.` }),
  } as { [K in Key]: z.ZodArray<Item> };
  return z
    .strictObject({
      results: z
        .int()
        .min(0)
        .max(MAX_PAGE)
        .meta({ format: 'int32', description: `How many ${words.items} this page holds.` }),
      ...items,
      hasMore: z.boolean().meta({ description: `Whether more ${words.items} follow (ask with \`startingAfter\`).` }),
    })
    .meta(meta);
}
