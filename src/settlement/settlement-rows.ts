import type { LedgerLineType } from './ledger-line-types';
import { batchSchema, type Batch, type LedgerLine, type Payout } from './settlement.schemas';

/**
 * The settlement tables' rows as read (dates as text: PGlite and pg answer
 * date columns differently; bigints as text or numbers, as each driver
 * gives them), and the API's shapes of them.
 */
export const BATCH_COLUMNS = `location_id, id, business_date::text as business_date, currency, time_zone, closeout_hour, opens_at, closes_at, closed_at,
  counts, totals, payout_id, seal`;

export interface BatchRow {
  location_id: string;
  id: string;
  business_date: string;
  currency: string;
  time_zone: string;
  closeout_hour: number;
  opens_at: Date | string;
  closes_at: Date | string;
  closed_at: Date | string;
  counts: Batch['counts'] | string;
  totals: Batch['totals'] | string;
  payout_id: string | null;
  seal: string;
}

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
const iso = (value: Date | string) => new Date(value).toISOString();

const COUNT_KEYS = Object.keys(batchSchema.shape.counts.shape) as Array<keyof Batch['counts']>;
const TOTAL_KEYS = Object.keys(batchSchema.shape.totals.shape) as Array<keyof Batch['totals']>;

/** A jsonb object with its keys in the schema's order (jsonb keeps its own), so that a closed batch reads as an open one does. */
function inSchemaOrder<T extends object>(value: T, keys: ReadonlyArray<keyof T>): T {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as T;
}

export function toBatch(row: BatchRow): Batch {
  return {
    id: row.id,
    businessDate: row.business_date,
    currency: row.currency,
    status: 'CLOSED',
    timeZone: row.time_zone,
    closeoutHour: Number(row.closeout_hour),
    opensAt: iso(row.opens_at),
    closesAt: iso(row.closes_at),
    closedAt: iso(row.closed_at),
    counts: inSchemaOrder(json(row.counts), COUNT_KEYS),
    totals: inSchemaOrder(json(row.totals), TOTAL_KEYS),
    payoutId: row.payout_id,
  };
}

/** A payout's columns as read from the table under `alias`, its arrival date as text. */
export function payoutColumnsOf(alias: string): string {
  const columns = ['location_id', 'id', 'batch_id', 'amount', 'currency', 'status', 'trace_id', 'failure_code', 'created_at', 'updated_at'];
  return `${columns.map((column) => `${alias}.${column}`).join(', ')}, ${alias}.arrival_date::text as arrival_date`;
}
export const PAYOUT_COLUMNS = payoutColumnsOf('payouts');

export interface PayoutRow {
  location_id: string;
  id: string;
  batch_id: string;
  amount: number | string;
  currency: string;
  status: Payout['status'];
  arrival_date: string;
  trace_id: string;
  failure_code: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export function toPayout(row: PayoutRow): Payout {
  return {
    id: row.id,
    batchId: row.batch_id,
    amount: Number(row.amount),
    currency: row.currency,
    status: row.status,
    arrivalDate: row.arrival_date,
    traceId: row.trace_id,
    failureCode: row.failure_code,
    createdAt: iso(row.created_at),
  };
}

const LINE_COLUMNS = [
  'id',
  'batch_id',
  'type',
  'source_type',
  'source_id',
  'payment_intent_id',
  'refund_id',
  'external_reference_id',
  'occurred_at',
  'currency',
  'gross',
  'tip',
  'fee',
  'net',
  'card_brand',
  'card_last_four',
];
const LINE_DATES = ['business_date', 'original_business_date', 'redated_from'];

/** A line's columns as read from the table under `alias`, its dates as text. */
export function lineColumnsOf(alias: string): string {
  return [...LINE_COLUMNS.map((column) => `${alias}.${column}`), ...LINE_DATES.map((column) => `${alias}.${column}::text as ${column}`)].join(', ');
}

export interface LineRow {
  id: string;
  batch_id: string | null;
  type: LedgerLineType;
  source_type: string;
  source_id: string;
  payment_intent_id: string | null;
  refund_id: string | null;
  external_reference_id: string | null;
  occurred_at: Date | string;
  business_date: string;
  original_business_date: string | null;
  redated_from: string | null;
  currency: string;
  gross: number | string;
  tip: number | string;
  fee: number | string;
  net: number | string;
  card_brand: string | null;
  card_last_four: string | null;
  /** The payout of the batch it landed in, where read with it. */
  payout_id?: string | null;
}

export function toLine(row: LineRow): LedgerLine {
  return {
    id: row.id,
    batchId: row.batch_id,
    type: row.type,
    sourceType: row.source_type,
    sourceId: row.source_id,
    paymentIntentId: row.payment_intent_id,
    refundId: row.refund_id,
    externalReferenceId: row.external_reference_id,
    occurredAt: iso(row.occurred_at),
    businessDate: row.business_date,
    originalBusinessDate: row.original_business_date,
    redatedFrom: row.redated_from,
    currency: row.currency,
    gross: Number(row.gross),
    tip: Number(row.tip),
    fee: Number(row.fee),
    net: Number(row.net),
    card: row.card_brand === null || row.card_last_four === null ? null : { brand: row.card_brand, lastFour: row.card_last_four },
    payoutId: row.payout_id ?? null,
  };
}
