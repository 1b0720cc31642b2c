import type { Knex } from 'knex';
import { byCodeUnits } from '../platform/code-unit-order';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
import { addDays } from './banking-days';
import { batchIdOf } from './batch-id';
import { asNumbers, totalsOf, type LinesOfType } from './batch-totals';
import { opensAtSql, settingsInForce, versionOnDate } from './business-day-sql';
import { CLOSING_LINE_TYPES, MOVEMENT_LINE_TYPES, type LedgerLineType } from './ledger-line-types';
import { BATCH_COLUMNS, lineColumnsOf, toBatch, toLine, type BatchRow, type LineRow } from './settlement-rows';
import type { Batch, LedgerLine } from './settlement.schemas';

/**
 * A location's batches as read (docs/settlement.md, Batches). A CLOSED batch
 * is its row. An OPEN one is the lines waiting for their day's close,
 * summed when read: one per day the waiting movements will close on (their
 * own, or for one that committed after its day closed, the day after the
 * last closed one), and today's; a carry-forward counts in the first open
 * day from its date, where the close will put it.
 */

/** Where an open batch's lines are: waiting lines of its currency dated after `after` (exclusive, null: any) up to `businessDate`. */
interface OpenBatchRange {
  businessDate: string;
  currency: string;
  after: string | null;
}

const WAITING_GROUPS = preparedStatement(
  'waiting_line_groups',
  `select waiting.business_date::text as business_date, waiting.currency, waiting.type, count(*)::int as count,
          sum(waiting.gross)::bigint as gross, sum(waiting.tip)::bigint as tip, sum(waiting.fee)::bigint as fee, sum(waiting.net)::bigint as net,
          (select max(closed.business_date)::text from ledger_batches closed
            where closed.location_id = waiting.location_id and closed.currency = waiting.currency) as last_closed
     from ledger_lines waiting
    where waiting.location_id = ? and waiting.batch_id is null
    group by waiting.location_id, waiting.business_date, waiting.currency, waiting.type`,
);

const TODAY = preparedStatement('business_date_today', `select business_date::text as business_date from (${settingsInForce('?', 'now()')}) as today`);

/** An open day's first and last instants and its zone and cutoff, under the settings of each date. */
const OPEN_DAY = namedStatement(
  'open_business_day',
  `select day.time_zone, day.closeout_hour, ${opensAtSql('@business_date::date', 'day.time_zone', 'day.closeout_hour')} as opens_at,
          ${opensAtSql('(@business_date::date + 1)', 'next_day.time_zone', 'next_day.closeout_hour')} as closes_at
     from (${versionOnDate('@location_id', '@business_date::date')}) as day, (${versionOnDate('@location_id', '(@business_date::date + 1)')}) as next_day`,
);

interface WaitingGroup extends LinesOfType {
  business_date: string;
  currency: string;
  /** The newest closed day of the currency: a movement dated on or before it committed after its day closed. */
  last_closed: string | null;
}

/** The day a waiting group's movements will close on: its own, or the day after the last closed one. */
function closesOn(group: WaitingGroup): string {
  return group.last_closed !== null && group.business_date <= group.last_closed ? addDays(group.last_closed, 1) : group.business_date;
}

export async function businessDateToday(db: Knex, locationId: string): Promise<string> {
  const [today] = await runPrepared<{ business_date: string }>(db, TODAY, [locationId]);
  return (today as { business_date: string }).business_date;
}

/** How batches are listed: newest business date first, then by currency. */
export function newestBatchFirst(a: Pick<Batch, 'businessDate' | 'currency'>, b: Pick<Batch, 'businessDate' | 'currency'>): number {
  return byCodeUnits(b.businessDate, a.businessDate) || byCodeUnits(a.currency, b.currency);
}

/** The location's open batches, newest first, each with its running totals. */
export async function openBatches(db: Knex, locationId: string): Promise<Array<Batch & { range: OpenBatchRange }>> {
  const groups = (await runPrepared<WaitingGroup>(db, WAITING_GROUPS, [locationId])).map(asNumbers);
  const today = await businessDateToday(db, locationId);
  const batches: Array<Batch & { range: OpenBatchRange }> = [];
  for (const currency of [...new Set(groups.map((group) => group.currency))].sort()) {
    const ofCurrency = groups.filter((group) => group.currency === currency);
    const openDates = [...new Set([...ofCurrency.filter((group) => MOVEMENT_LINE_TYPES.includes(group.type as LedgerLineType)).map(closesOn), today])].sort();
    let after: string | null = null;
    for (const businessDate of openDates) {
      const inBatch = ofCurrency.filter((group) => (after === null || group.business_date > after) && group.business_date <= businessDate);
      const range: OpenBatchRange = { businessDate, currency, after };
      after = businessDate;
      if (inBatch.length === 0) continue;
      const [day] = await runNamed<{ time_zone: string; closeout_hour: number; opens_at: Date | string; closes_at: Date | string }>(db, OPEN_DAY, {
        business_date: businessDate,
        location_id: locationId,
      });
      const { counts, totals } = totalsOf(inBatch);
      batches.push({
        id: batchIdOf(locationId, businessDate, currency),
        businessDate,
        currency,
        status: 'OPEN',
        timeZone: day!.time_zone,
        closeoutHour: Number(day!.closeout_hour),
        opensAt: new Date(day!.opens_at).toISOString(),
        closesAt: new Date(day!.closes_at).toISOString(),
        closedAt: null,
        counts,
        totals,
        payoutId: null,
        range,
      });
    }
  }
  return batches.sort(newestBatchFirst);
}

const CLOSED_BATCH = preparedStatement('closed_batch', `select ${BATCH_COLUMNS} from ledger_batches where location_id = ? and id = ?`);

export async function closedBatch(db: Knex, locationId: string, id: string): Promise<(Batch & { seal: string }) | undefined> {
  const [row] = await runPrepared<BatchRow>(db, CLOSED_BATCH, [locationId, id]);
  return row === undefined ? undefined : { ...toBatch(row), seal: row.seal };
}

const CLOSED_BATCHES = preparedStatement(
  'closed_batches',
  `select ${BATCH_COLUMNS} from ledger_batches where location_id = ? and business_date between ?::date and ?::date order by business_date desc, currency`,
);

/** The closed batches of business dates `from` to `to`, newest first, each with its seal. */
export async function closedBatches(db: Knex, locationId: string, from: string, to: string): Promise<Array<Batch & { seal: string }>> {
  return (await runPrepared<BatchRow>(db, CLOSED_BATCHES, [locationId, from, to])).map((row) => ({ ...toBatch(row), seal: row.seal }));
}

/** A line with the payout of the batch it landed in (none while it waits). */
export const LINES_WITH_PAYOUT = `select ${lineColumnsOf('line')}, batch.payout_id
   from ledger_lines line left join ledger_batches batch on batch.location_id = line.location_id and batch.id = line.batch_id`;

/** A page of lines after `@starting_after` (null: from the first), or the one line `@only`, in the order written. */
const PAGE = `(@starting_after::uuid is null or line.id > @starting_after::uuid) and (@only::uuid is null or line.id = @only::uuid)
  order by line.id limit @limit`;

const CLOSING_SQL = CLOSING_LINE_TYPES.map((type) => `'${type}'`).join(', ');

/** A closed batch's lines: those that close it (`@closing` true), the rest (false), or any (null). */
const CLOSED_BATCH_LINES = namedStatement(
  'closed_batch_lines',
  `${LINES_WITH_PAYOUT} where line.location_id = @location_id and line.batch_id = @batch_id::uuid
     and (@closing::boolean is null or (line.type in (${CLOSING_SQL})) = @closing::boolean) and ${PAGE}`,
);

/**
 * A page of a closed batch's lines: every movement and carry-in in the
 * order written, then what closed it (its PAYOUT or CARRY_FORWARD_OUT), so
 * that the closing line is last whatever order the replicas' clocks gave
 * the ids; a cursor on the closing line pages on among those.
 */
async function closedBatchLines(db: Knex, locationId: string, batchId: string, page: { limit: number; startingAfter?: string | undefined; only?: string }) {
  const run = (closing: boolean | null, startingAfter: string | null, only: string | null, limit: number) =>
    runNamed<LineRow>(db, CLOSED_BATCH_LINES, { location_id: locationId, batch_id: batchId, closing, starting_after: startingAfter, only, limit });
  if (page.only !== undefined) return run(null, null, page.only, 1);
  const [cursor] = page.startingAfter === undefined ? [] : await run(null, null, page.startingAfter, 1);
  const amongClosing = cursor !== undefined && CLOSING_LINE_TYPES.includes(cursor.type);
  const movements = amongClosing ? [] : await run(false, cursor?.id ?? null, null, page.limit);
  if (movements.length === page.limit) return movements;
  return [...movements, ...(await run(true, amongClosing ? cursor.id : null, null, page.limit - movements.length))];
}

const OPEN_BATCH_LINES = namedStatement(
  'open_batch_lines',
  `${LINES_WITH_PAYOUT}
   where line.location_id = @location_id and line.batch_id is null and line.currency = @currency
     and line.business_date <= @through::date and (@after::date is null or line.business_date > @after::date) and ${PAGE}`,
);

/**
 * A batch's lines in the order written, a page after `startingAfter` (or
 * the one line `only`): a closed batch's own, its closing line last, or an
 * open one's waiting lines.
 */
export async function linesOfBatch(
  db: Knex,
  locationId: string,
  batch: { id: string; status: 'OPEN' | 'CLOSED'; range?: OpenBatchRange | undefined },
  page: { limit: number; startingAfter?: string | undefined; only?: string },
): Promise<LedgerLine[]> {
  const paging = { location_id: locationId, starting_after: page.startingAfter ?? null, only: page.only ?? null, limit: page.limit };
  const rows =
    batch.status === 'CLOSED'
      ? await closedBatchLines(db, locationId, batch.id, page)
      : await runNamed<LineRow>(db, OPEN_BATCH_LINES, {
          ...paging,
          currency: (batch.range as OpenBatchRange).currency,
          through: (batch.range as OpenBatchRange).businessDate,
          after: (batch.range as OpenBatchRange).after,
        });
  return rows.map(toLine);
}

const INTENT_LINES = preparedStatement(
  'intent_ledger_lines',
  `${LINES_WITH_PAYOUT} where line.location_id = ? and line.payment_intent_id = ? order by line.id`,
);

/** Every line of one payment intent, in the order written, with the batch and payout each landed in. */
export async function linesOfIntent(db: Knex, locationId: string, paymentIntentId: string): Promise<LedgerLine[]> {
  return (await runPrepared<LineRow>(db, INTENT_LINES, [locationId, paymentIntentId])).map(toLine);
}
