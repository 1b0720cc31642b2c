import type { Knex } from 'knex';
import { linesOfBatch } from './batches.repository';
import type { Batch, LedgerLine } from './settlement.schemas';

/** How many lines one read of a file takes: what the file holds in memory at once. */
export const FILE_PAGE_LINES = 1_000;

/**
 * A batch's lines in a file's order, a page at a time: the order of its
 * list (every movement and carry-in in the order written, then its PAYOUT
 * or CARRY_FORWARD_OUT), so that a closed batch's net column sums to zero.
 * An OPEN batch has no closing line yet.
 */
export async function* batchLinesInFileOrder(
  db: Knex,
  locationId: string,
  batch: Batch & { range?: Parameters<typeof linesOfBatch>[2]['range'] },
): AsyncGenerator<LedgerLine[]> {
  let after: string | undefined;
  for (;;) {
    const lines = await linesOfBatch(db, locationId, batch, { limit: FILE_PAGE_LINES, startingAfter: after });
    if (lines.length > 0) yield lines;
    if (lines.length < FILE_PAGE_LINES) return;
    after = lines.at(-1)?.id;
  }
}
