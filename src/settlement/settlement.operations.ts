import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { pagingProse } from '../platform/validation/page-query';
import { ledgerCsvExample } from './ledger-csv';
import { lineTypesTable } from './ledger-line-types';
import {
  batchLinesQuerySchema,
  batchListResponseSchema,
  batchParamsSchema,
  batchSchema,
  changeLocationSettingsRequestSchema,
  currentBatchQuerySchema,
  failPayoutRequestSchema,
  ledgerFileQuerySchema,
  ledgerLineListResponseSchema,
  listBatchesQuerySchema,
  listPayoutsQuerySchema,
  locationSettingsSchema,
  payoutListResponseSchema,
  payoutParamsSchema,
  payoutSchema,
  salesDayLinesQuerySchema,
  salesDayParamsSchema,
  salesDayQuerySchema,
  salesDaySchema,
  type LedgerLine,
} from './settlement.schemas';
import type { SettlementService } from './settlement.service';

/** The location's settings, its batches, payouts and reports: one home, src/settlement (docs/settlement.md). */
const operation = operationsOf<{ settlement: SettlementService }>();
const tag = 'Settlement';
const GUIDE = 'docs/settlement.md walks a week of business days on the sandbox clock.';

/** What each list's cursor must be (the 400's words and the description's). */
const BATCH_CURSOR = 'a batch of this location in the range';
const LINE_CURSOR = 'a line of this batch';
const PAYOUT_CURSOR = 'a payout of this location in the range';
const SALES_LINE_CURSOR = 'a line of this sales day';

/** The files' media type, and their example: a capture and the payout that brings it to zero. */
const CSV_FILE = {
  mediaType: 'text/csv',
  // Made when the document is: its amounts ask the runtime's ICU for the currency's digits, which a process serving only the API never loads.
  get example() {
    return ledgerCsvExample();
  },
} as const;

/** A page of lines, read one past the page's `limit` to learn whether more follow. */
function linePage(lines: readonly LedgerLine[], limit: number) {
  const found = lines.slice(0, limit);
  return { results: found.length, lines: found, hasMore: lines.length > limit };
}

/** What the files' descriptions share (docs/settlement.md, The reconciliation file). */
const FILE_PROSE =
  'RFC 4180, UTF-8, a header row, one row per ledger line with the columns of `LedgerLine` under the same names (the card as `cardBrand` and `cardLastFour`) after its batch\u2019s `batchBusinessDate` and `batchId`; amounts in decimal major units of the currency (12.50), where the JSON answers keep integers in minor units. A text cell of the caller\u2019s (the order reference, the card) that a spreadsheet would run as a formula (starting `=`, `+`, `-`, `@`, a tab or a carriage return) starts with a quote mark. Streamed, a thousand lines at a time, however long.';

/**
 * A page of `items` after the one with id `startingAfter`: a range's
 * batches or payouts, at most 31 days' worth, are read whole and paged here.
 */
async function pageAfter<T extends { id: string }>(items: readonly T[], page: { limit: number; startingAfter?: string | undefined }, cursorOf: string) {
  await refuseUnknownCursor(page.startingAfter, cursorOf, async (id) => items.some((item) => item.id === id));
  const start = page.startingAfter === undefined ? 0 : items.findIndex((item) => item.id === page.startingAfter) + 1;
  const found = items.slice(start, start + page.limit);
  return { found, hasMore: start + page.limit < items.length };
}

export const getLocationSettings = operation({
  method: 'get',
  path: '/v1/location-settings',
  operationId: 'getLocationSettings',
  tag,
  summary: "Get the location's business-day and fee settings",
  description: `Not in the spec. The settings in force now on the location's clock: its time zone and closeout hour (Toast's business-day cutoff: business date D runs from D at that hour, local, to D+1 at it), the sandbox fee rules and bank holidays, the business date now, and a change not yet in force (\`scheduled\`). Before any change, the defaults. ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  responses: { 200: { description: 'The settings.', schema: locationSettingsSchema } },
  errors: [],
  handle: async ({ db, location }, { settlement }) => ({ status: 200, body: await settlement.settings(db, location) }),
});

export const changeLocationSettings = operation({
  method: 'patch',
  path: '/v1/location-settings',
  operationId: 'changeLocationSettings',
  tag,
  summary: "Change the location's business-day and fee settings",
  description:
    "Not in the spec. Changes the fields given (the rest stay). The change takes effect from the first business date that has begun neither under the settings in force nor under the new ones, so a day that has ledger lines is never cut again: the answer names it (`scheduled.effectiveFromBusinessDate`); a second change before then replaces it. Records `location_settings.updated`. Toast lets only its support change the cutoff: the scope `spi.location-settings:write` is an operator's, for no integration client (docs/settlement.md).",
  access: { scope: SCOPE.locationSettingsWrite },
  body: { schema: changeLocationSettingsRequestSchema },
  responses: { 200: { description: 'The settings, with the change as `scheduled`.', schema: locationSettingsSchema } },
  errors: [],
  handle: async ({ write, body }, { settlement }) => ({ status: 200, body: await settlement.changeSettings(write, body) }),
});

export const listBatches = operation({
  method: 'get',
  path: '/v1/batches',
  operationId: 'listBatches',
  tag,
  summary: "List the location's batches, one per business day and currency",
  description: `Not in the spec. The batches of a range of business dates (at most 31 days; the 31 days to today by default), newest first: OPEN ones with running totals (today's, and a past day whose close has not run yet), CLOSED ones as sealed. A day on which no money moved has none. ${pagingProse('newest first', BATCH_CURSOR)} ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  query: listBatchesQuerySchema,
  responses: { 200: { description: 'A page of batches.', schema: batchListResponseSchema } },
  errors: [],
  handle: async ({ db, location, query }, { settlement }) => {
    const { found, hasMore } = await pageAfter(await settlement.batches(db, location, query, query.status), query, BATCH_CURSOR);
    return { status: 200, body: { results: found.length, batches: found, hasMore } };
  },
});

export const getCurrentBatch = operation({
  method: 'get',
  path: '/v1/batches/current',
  operationId: 'getCurrentBatch',
  tag,
  summary: "Get today's open batch, with its running totals",
  description: `Not in the spec. Today's OPEN batch (the business date now, on the location's clock) with the totals so far, like Toast's pending batches; 404 \`BATCH_NOT_FOUND\` while no money has moved today. ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  query: currentBatchQuerySchema,
  responses: { 200: { description: 'The open batch.', schema: batchSchema } },
  errors: ['BATCH_NOT_FOUND'],
  handle: async ({ db, location, query }, { settlement }) => ({ status: 200, body: await settlement.currentBatch(db, location, query.currency) }),
});

export const getBatch = operation({
  method: 'get',
  path: '/v1/batches/{id}',
  operationId: 'getBatch',
  tag,
  summary: 'Get a batch',
  description: `Not in the spec. One batch, OPEN (running totals) or CLOSED (never changes again). Its \`net\` is the sum of its movements' nets (captures, refunds, failed refunds); \`net = payout + carriedOut − carriedIn\`, and its lines, the payout line included, sum to zero. ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  params: batchParamsSchema,
  responses: { 200: { description: 'The batch.', schema: batchSchema, etag: 'Once the batch is CLOSED: it never changes.' } },
  errors: ['BATCH_NOT_FOUND'],
  handle: async ({ db, location, params }, { settlement }) => {
    const { seal, range: _range, ...batch } = await settlement.batch(db, location, params.id);
    return { status: 200, body: batch, ...(seal === undefined ? {} : { etag: seal }) };
  },
});

export const listBatchLines = operation({
  method: 'get',
  path: '/v1/batches/{id}/lines',
  operationId: 'listBatchLines',
  tag,
  summary: "List a batch's ledger lines",
  description: `Not in the spec. The batch's lines in the order they were written, its payout (or carry-forward) last. ${pagingProse('oldest first', LINE_CURSOR)} The line types:

${lineTypesTable()}`,
  access: { scope: SCOPE.reportsRead },
  params: batchParamsSchema,
  query: batchLinesQuerySchema,
  responses: { 200: { description: 'A page of lines.', schema: ledgerLineListResponseSchema } },
  errors: ['BATCH_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { settlement }) => {
    const lines = await settlement.batchLines(db, location, params.id, { limit: query.limit + 1, startingAfter: query.startingAfter }, LINE_CURSOR);
    return { status: 200, body: linePage(lines, query.limit) };
  },
});

export const getBatchFile = operation({
  method: 'get',
  path: '/v1/batches/{id}/lines.csv',
  operationId: 'getBatchFile',
  tag,
  summary: "Download a batch's lines as CSV",
  description: `Not in the spec. The batch's lines as a file, in the order written, what closed it (its PAYOUT or CARRY_FORWARD_OUT line) last: the \`net\` column of a CLOSED batch sums to zero. An OPEN batch's file has its lines so far, no closing line yet. ${FILE_PROSE} ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  params: batchParamsSchema,
  responses: {
    200: {
      description: 'The file.',
      file: CSV_FILE,
      etag: 'Once the batch is CLOSED: the file is the same, byte for byte, on every read.',
    },
  },
  errors: ['BATCH_NOT_FOUND'],
  handle: async ({ db, location, params }, { settlement }) => {
    const { file, etag } = await settlement.batchFile(db, location, params.id);
    return { status: 200, body: file, ...(etag === undefined ? {} : { etag }) };
  },
});

export const getLedgerFile = operation({
  method: 'get',
  path: '/v1/reports/ledger.csv',
  operationId: 'getLedgerFile',
  tag,
  summary: 'Download the closed batches of a range of business dates as CSV',
  description: `Not in the spec. The reconciliation file of a range of business dates (at most 31 days; the 31 days to today by default): the lines of every CLOSED batch of the range, oldest batch first, each batch's lines as \`getBatchFile\` gives them, so that each batch and the whole file sum to zero; an OPEN day is left out until it closes. ${FILE_PROSE} ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  query: ledgerFileQuerySchema,
  responses: {
    200: {
      description: 'The file.',
      file: CSV_FILE,
      etag: 'Always: it changes when one more batch of the range closes, and never otherwise.',
    },
  },
  errors: [],
  handle: async ({ db, location, query }, { settlement }) => {
    const { file, etag } = await settlement.rangeFile(db, location, query, query.currency);
    return { status: 200, body: file, etag };
  },
});

export const getSalesDay = operation({
  method: 'get',
  path: '/v1/reports/sales-days/{businessDate}',
  operationId: 'getSalesDay',
  tag,
  summary: 'Get the sales of one business date, and what became of them since',
  description: `Not in the spec. Toast's sales view, beside the deposit view the batches give: what the captures of one business date came to, and the refunds and failed refunds against them since, whichever business day and batch each landed in (their lines: \`listSalesDayLines\`). A date with no sales answers zeros. ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  params: salesDayParamsSchema,
  query: salesDayQuerySchema,
  responses: { 200: { description: 'The sales day.', schema: salesDaySchema } },
  errors: [],
  handle: async ({ db, location, params, query }, { settlement }) => ({
    status: 200,
    body: await settlement.salesDay(db, location, params.businessDate, query.currency),
  }),
});

export const listSalesDayLines = operation({
  method: 'get',
  path: '/v1/reports/sales-days/{businessDate}/lines',
  operationId: 'listSalesDayLines',
  tag,
  summary: "List a sales day's ledger lines",
  description: `Not in the spec. The captures of one business date and every later line against them, each with the \`businessDate\`, \`batchId\` and \`payoutId\` it landed in. ${pagingProse('oldest first', SALES_LINE_CURSOR)} ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  params: salesDayParamsSchema,
  query: salesDayLinesQuerySchema,
  responses: { 200: { description: 'A page of lines.', schema: ledgerLineListResponseSchema } },
  errors: [],
  handle: async ({ db, location, params, query }, { settlement }) => {
    const lines = await settlement.salesDayLines(db, location, params.businessDate, { ...query, limit: query.limit + 1 }, SALES_LINE_CURSOR);
    return { status: 200, body: linePage(lines, query.limit) };
  },
});

export const listPayouts = operation({
  method: 'get',
  path: '/v1/payouts',
  operationId: 'listPayouts',
  tag,
  summary: "List the location's payouts",
  description: `Not in the spec. The payouts of the batches of a range of business dates (at most 31 days; the 31 days to today by default), newest first. A payout is PENDING when its batch closes, IN_TRANSIT from the next day, PAID on its \`arrivalDate\` (the next banking day after the close), or FAILED. ${pagingProse('newest first', PAYOUT_CURSOR)} ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  query: listPayoutsQuerySchema,
  responses: { 200: { description: 'A page of payouts.', schema: payoutListResponseSchema } },
  errors: [],
  handle: async ({ db, location, query }, { settlement }) => {
    const { found, hasMore } = await pageAfter(await settlement.payouts(db, location, query, query.status), query, PAYOUT_CURSOR);
    return { status: 200, body: { results: found.length, payouts: found, hasMore } };
  },
});

export const getPayout = operation({
  method: 'get',
  path: '/v1/payouts/{id}',
  operationId: 'getPayout',
  tag,
  summary: 'Get a payout',
  description: `Not in the spec. One payout, as it stands. ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  params: payoutParamsSchema,
  responses: { 200: { description: 'The payout.', schema: payoutSchema } },
  errors: ['PAYOUT_NOT_FOUND'],
  handle: async ({ db, location, params }, { settlement }) => ({ status: 200, body: await settlement.payout(db, location, params.id) }),
});

export const listPayoutLines = operation({
  method: 'get',
  path: '/v1/payouts/{id}/lines',
  operationId: 'listPayoutLines',
  tag,
  summary: 'List the ledger lines a payout carried',
  description: `Not in the spec. The lines of the batch the payout closed, in the order written, its PAYOUT line last: what a bank deposit is made of. ${pagingProse('oldest first', LINE_CURSOR)} ${GUIDE}`,
  access: { scope: SCOPE.reportsRead },
  params: payoutParamsSchema,
  query: batchLinesQuerySchema,
  responses: { 200: { description: 'A page of lines.', schema: ledgerLineListResponseSchema } },
  errors: ['PAYOUT_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { settlement }) => {
    const { batchId } = await settlement.payout(db, location, params.id);
    const lines = await settlement.batchLines(db, location, batchId, { limit: query.limit + 1, startingAfter: query.startingAfter }, LINE_CURSOR);
    return { status: 200, body: linePage(lines, query.limit) };
  },
});

export const failSandboxPayout = operation({
  method: 'post',
  path: '/v1/sandbox/payouts/{id}/fail',
  operationId: 'failSandboxPayout',
  tag,
  summary: 'Make a payout fail, as a bank returning a deposit (sandbox)',
  description:
    "Not in the spec. A PENDING or IN_TRANSIT payout becomes FAILED with `failureCode` (`payout.failed`), and its amount returns to the location's balance as a CARRY_FORWARD_IN line of the open batch, paid with the next payout (Stripe's failed payout). 409 `PAYOUT_STATUS_CONFLICT` once it has arrived or failed.",
  access: { scope: SCOPE.serverWrite },
  params: payoutParamsSchema,
  body: { schema: failPayoutRequestSchema, optional: true },
  responses: { 200: { description: 'The payout, FAILED.', schema: payoutSchema } },
  errors: ['PAYOUT_NOT_FOUND', 'PAYOUT_STATUS_CONFLICT'],
  handle: async ({ write, params, body }, { settlement }) => ({ status: 200, body: await settlement.failPayout(write, params.id, body.failureCode) }),
});

export const settlementOperations = [
  getLocationSettings,
  changeLocationSettings,
  listBatches,
  getCurrentBatch,
  getBatch,
  listBatchLines,
  getBatchFile,
  getLedgerFile,
  getSalesDay,
  listSalesDayLines,
  listPayouts,
  getPayout,
  listPayoutLines,
  failSandboxPayout,
];
