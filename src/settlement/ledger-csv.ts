import { createHash } from 'node:crypto';
import { csvRow, majorUnits, minorUnitDigits, plainCell, textCell } from '../platform/csv/csv-cells';
import { BATCH_EXAMPLE, LINE_EXAMPLE, type Batch, type LedgerLine } from './settlement.schemas';

/**
 * The reconciliation file (docs/settlement.md, The reconciliation file): one
 * row per ledger line, with the business date and id of the batch it
 * belongs to, amounts in decimal major units. Its columns are the JSON
 * line's fields under the same names, so one vocabulary serves both.
 */
const COLUMNS: ReadonlyArray<{ name: string; cell(line: LedgerLine, batch: Batch, digits: number): string }> = [
  { name: 'batchBusinessDate', cell: (_line, batch) => plainCell(batch.businessDate) },
  { name: 'batchId', cell: (_line, batch) => plainCell(batch.id) },
  { name: 'id', cell: (line) => plainCell(line.id) },
  { name: 'type', cell: (line) => plainCell(line.type) },
  { name: 'occurredAt', cell: (line) => plainCell(line.occurredAt) },
  { name: 'businessDate', cell: (line) => plainCell(line.businessDate) },
  { name: 'originalBusinessDate', cell: (line) => plainCell(line.originalBusinessDate) },
  { name: 'redatedFrom', cell: (line) => plainCell(line.redatedFrom) },
  { name: 'sourceType', cell: (line) => plainCell(line.sourceType) },
  { name: 'sourceId', cell: (line) => plainCell(line.sourceId) },
  { name: 'paymentIntentId', cell: (line) => plainCell(line.paymentIntentId) },
  { name: 'refundId', cell: (line) => plainCell(line.refundId) },
  // The caller's own texts: a spreadsheet must show them, never run them.
  { name: 'externalReferenceId', cell: (line) => textCell(line.externalReferenceId) },
  { name: 'cardBrand', cell: (line) => textCell(line.card?.brand ?? null) },
  { name: 'cardLastFour', cell: (line) => textCell(line.card?.lastFour ?? null) },
  { name: 'currency', cell: (line) => plainCell(line.currency) },
  { name: 'gross', cell: (line, _batch, digits) => majorUnits(line.gross, digits) },
  { name: 'tip', cell: (line, _batch, digits) => majorUnits(line.tip, digits) },
  { name: 'fee', cell: (line, _batch, digits) => majorUnits(line.fee, digits) },
  { name: 'net', cell: (line, _batch, digits) => majorUnits(line.net, digits) },
  { name: 'payoutId', cell: (line) => plainCell(line.payoutId) },
];

/** The version of the file's layout, part of every ETag: a new layout is a new file. */
const FILE_LAYOUT = 'ledger-csv-1';

export const LEDGER_CSV_HEADER = csvRow(COLUMNS.map((column) => column.name));

/** The rows of some of a batch's lines. */
function rowsOf(batch: Batch, lines: readonly LedgerLine[]): string {
  const digits = minorUnitDigits(batch.currency);
  return lines.map((line) => csvRow(COLUMNS.map((column) => column.cell(line, batch, digits)))).join('');
}

/** The file's text as chunks: the header row, then one chunk per page of lines. */
export async function* ledgerCsv(pages: AsyncIterable<{ batch: Batch; lines: readonly LedgerLine[] }>): AsyncGenerator<string> {
  yield LEDGER_CSV_HEADER;
  for await (const { batch, lines } of pages) yield rowsOf(batch, lines);
}

/** The ETag of a file of closed batches, made of their seals: it changes when one more batch of the range closes, never otherwise. */
export function ledgerCsvEtag(seals: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([FILE_LAYOUT, ...seals]))
    .digest('base64url');
}

/** The document's example: the schemas' example capture, and the payout line that brings the file to zero. */
export function ledgerCsvExample(): string {
  const batch = BATCH_EXAMPLE as Batch;
  const capture = LINE_EXAMPLE as LedgerLine;
  const payout: LedgerLine = {
    ...capture,
    id: '019ac9a4-0f1f-7a2b-8c3d-4e5f6a7b8c9d',
    type: 'PAYOUT',
    sourceType: 'payout',
    sourceId: batch.payoutId as string,
    paymentIntentId: null,
    externalReferenceId: null,
    occurredAt: batch.closedAt as string,
    originalBusinessDate: null,
    gross: -capture.net,
    tip: 0,
    fee: 0,
    net: -capture.net,
    card: null,
  };
  return LEDGER_CSV_HEADER + rowsOf(batch, [capture, payout]);
}
