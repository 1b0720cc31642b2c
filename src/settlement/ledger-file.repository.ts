import type { Knex } from 'knex';
import { namedStatement, runNamed } from '../platform/db/prepared-statement';
import { linesOfBatch, LINES_WITH_PAYOUT } from './batches.repository';
import { CLOSING_LINE_TYPES } from './ledger-line-types';
import { toLine, type LineRow } from './settlement-rows';
import type { Batch, LedgerLine } from './settlement.schemas';

/** How many lines one read of a file takes: what the file holds in memory at once. */
export const FILE_PAGE_LINES = 1_000;

const CLOSING_SQL = CLOSING_LINE_TYPES.map((type) => `'${type}'`).join(', ');

/** A closed batch's lines after `@after` in the order written, those that close it (`@closing`) apart from the rest, on its index. */
const CLOSED_LINES_IN_PART = namedStatement(
  'file_closed_batch_lines',
  `${LINES_WITH_PAYOUT}
   where line.location_id = @location_id and line.batch_id = @batch_id::uuid and (line.type in (${CLOSING_SQL})) = @closing
     and (@after::uuid is null or line.id > @after::uuid)
   order by line.id limit @limit`,
);

/**
 * A batch's lines in a file's order, a page at a time: every movement and
 * carry-in in the order written, then what closed it (its PAYOUT or
 * CARRY_FORWARD_OUT), so that the net column sums to zero whatever order
 * the replicas' clocks gave the ids. An OPEN batch has no closing line yet.
 */
export async function* batchLinesInFileOrder(
  db: Knex,
  locationId: string,
  batch: Batch & { range?: Parameters<typeof linesOfBatch>[2]['range'] },
): AsyncGenerator<LedgerLine[]> {
  if (batch.status === 'OPEN') {
    let after: string | undefined;
    for (;;) {
      const lines = await linesOfBatch(db, locationId, batch, { limit: FILE_PAGE_LINES, startingAfter: after });
      if (lines.length > 0) yield lines;
      if (lines.length < FILE_PAGE_LINES) return;
      after = lines.at(-1)?.id;
    }
  }
  for (const closing of [false, true]) {
    let after: string | null = null;
    for (;;) {
      const rows: LineRow[] = await runNamed<LineRow>(db, CLOSED_LINES_IN_PART, {
        location_id: locationId,
        batch_id: batch.id,
        closing,
        after,
        limit: FILE_PAGE_LINES,
      });
      if (rows.length > 0) yield rows.map(toLine);
      if (rows.length < FILE_PAGE_LINES) break;
      after = rows.at(-1)?.id ?? null;
    }
  }
}
