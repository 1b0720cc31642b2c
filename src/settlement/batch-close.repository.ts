import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { recordEvents } from '../change-log/record-events';
import { serviceWrite } from '../change-log/write-context';
import { clockNow } from '../platform/clock/location-clock';
import { inTransaction } from '../platform/db/in-transaction';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
import { addDays, arrivalDateOf } from './banking-days';
import { batchIdOf } from './batch-id';
import { asNumbers, totalsOf, type LinesOfType } from './batch-totals';
import { opensAtSql, settingsInForce, versionOnDate } from './business-day-sql';
import { MOVEMENT_LINE_TYPES, type LedgerLineType } from './ledger-line-types';
import { BATCH_COLUMNS, toBatch, toPayout, type BatchRow, type PayoutRow } from './settlement-rows';

/** A business day of one location and currency whose close is due. */
export interface DueBatch {
  locationId: string;
  businessDate: string;
  currency: string;
}

const MOVEMENTS_SQL = MOVEMENT_LINE_TYPES.map((type) => `'${type}'`).join(', ');

/**
 * The days whose close is due, oldest first: a day with movements waiting
 * (no batch yet) that is before the location's business date now. A
 * movement that committed after its own day closed counts on the day after
 * the last closed one, and the close of that day takes it (re-dated), so it
 * never waits for a later movement. Carry-forwards alone close no day.
 */
const DUE = (atLocation: boolean) =>
  preparedStatement(
    atLocation ? 'due_batches_at' : 'due_batches',
    `select distinct waiting.location_id, greatest(waiting.business_date, last_closed.business_date + 1)::text as business_date, waiting.currency
       from (select distinct location_id, business_date, currency from ledger_lines
              where batch_id is null and type in (${MOVEMENTS_SQL}) ${atLocation ? 'and location_id = ?' : ''}) as waiting
       cross join lateral (select max(closed.business_date) as business_date from ledger_batches closed
                            where closed.location_id = waiting.location_id and closed.currency = waiting.currency) as last_closed
       cross join lateral (${settingsInForce('waiting.location_id', 'now()')}) as today
      where greatest(waiting.business_date, last_closed.business_date + 1) < today.business_date
      order by 2, 1, 3
      limit ?`,
  );
const DUE_ACROSS = DUE(false);
const DUE_AT = DUE(true);

export async function dueBatches(db: Knex, limit: number, locationId?: string): Promise<DueBatch[]> {
  const rows =
    locationId === undefined
      ? await runPrepared<{ location_id: string; business_date: string; currency: string }>(db, DUE_ACROSS, [limit])
      : await runPrepared<{ location_id: string; business_date: string; currency: string }>(db, DUE_AT, [locationId, limit]);
  return rows.map((row) => ({ locationId: row.location_id, businessDate: row.business_date, currency: row.currency }));
}

/**
 * The batch's row, claimed by the one close that inserts it (another
 * replica's waits on the key, then finds it taken and stops): the day's
 * zone and cutoff, its first and last instants under the settings of each
 * date, and the bank holidays its payout date skips.
 */
const CLAIM_BATCH = namedStatement(
  'claim_batch',
  `insert into ledger_batches (location_id, id, business_date, currency, time_zone, closeout_hour, opens_at, closes_at, closed_at, counts, totals, seal)
   select @location_id, @id, @business_date::date, @currency, day.time_zone, day.closeout_hour,
          ${opensAtSql('@business_date::date', 'day.time_zone', 'day.closeout_hour')},
          ${opensAtSql('(@business_date::date + 1)', 'next_day.time_zone', 'next_day.closeout_hour')},
          @closed_at, '{}', '{}', ''
     from (${versionOnDate('@location_id', '@business_date::date')}) as day,
          (${versionOnDate('@location_id', '(@business_date::date + 1)')}) as next_day
   on conflict do nothing
   returning id`,
);

/** The bank holidays of the settings in force on a date: the days its payout does not arrive on. */
const BANK_HOLIDAYS_ON = preparedStatement(
  'bank_holidays_on',
  `select to_json(array(select holiday::text from unnest(day.bank_holidays) as holiday))::text as bank_holidays
     from (${versionOnDate('?', '?::date')}) as day`,
);

/**
 * How many waiting lines one statement of a close gives their batch. A busy
 * day's lines in one statement outlast the statement timeout every
 * connection has (docs/performance.md, The ledger at size), and such a day
 * would never close: in statements of this many, each stays far inside it,
 * however long the day.
 */
export const ASSIGN_CHUNK = 5_000;

/** The lines waiting for the day (its own, carry-forwards sent to it, late ones), as a condition on `line`. */
const WAITING_FOR_DAY = `line.location_id = @location_id and line.currency = @currency and line.batch_id is null and line.business_date <= @business_date::date`;

/** The first waiting line's id, where the close's walk in id order starts. */
const FIRST_WAITING = namedStatement(
  'first_waiting_line',
  `select line.id::text as id from ledger_lines line where ${WAITING_FOR_DAY} order by line.id limit 1`,
);

/**
 * The next ASSIGN_CHUNK waiting lines from `@from` in id order join the
 * batch: the day's own, the carry-forwards sent to it, and a line that
 * committed after its own day closed (re-dated, `redated_from` its date).
 * The chunk is a range of ids, so the update reads a range of the primary
 * key whatever the planner's statistics make of a day that just filled.
 * Answers the range's last id, how many the chunk found (fewer than asked:
 * none is left), and what the lines taken come to by type; a line another
 * close took first is found but not taken (the update re-checks
 * `batch_id is null`). A line committing meanwhile with an id before the
 * walk waits for the next close, as one committing after it.
 */
const ASSIGN_LINES = namedStatement(
  'assign_lines_to_batch',
  `with chunk as (
     select line.id from ledger_lines line where ${WAITING_FOR_DAY} and line.id >= @from::uuid order by line.id limit @chunk
   ), bound as (
     select (select id from chunk order by id desc limit 1) as upto, (select count(*) from chunk)::int as found
   ), assigned as (
     update ledger_lines line
        set batch_id = @id, business_date = @business_date::date,
            redated_from = case when line.business_date < @business_date::date and line.type in (${MOVEMENTS_SQL}) then line.business_date end
       from bound
      where ${WAITING_FOR_DAY} and line.id >= @from::uuid and line.id <= bound.upto
      returning line.type, line.gross, line.tip, line.fee, line.net
   )
   select bound.upto::text as upto, bound.found, taken.type, taken.count, taken.gross, taken.tip, taken.fee, taken.net
     from bound
     left join (select type, count(*)::int as count, sum(gross)::bigint as gross, sum(tip)::bigint as tip, sum(fee)::bigint as fee, sum(net)::bigint as net
                  from assigned group by type) as taken on true`,
);

/** Gives the day's waiting lines their batch, ASSIGN_CHUNK at a time in id order, and answers what they came to by type. */
async function assignLines(trx: Knex.Transaction, values: Record<string, string>): Promise<LinesOfType[]> {
  const groups: LinesOfType[] = [];
  let [next] = await runNamed<{ id: string }>(trx, FIRST_WAITING, values);
  while (next !== undefined) {
    const rows = await runNamed<LinesOfType & { upto: string | null; found: number }>(trx, ASSIGN_LINES, { ...values, from: next.id, chunk: ASSIGN_CHUNK });
    groups.push(...rows.filter((row) => row.type !== null).map(({ upto: _upto, found: _found, ...group }) => asNumbers(group)));
    const [last] = rows;
    // The chunk's last line is taken now, so starting the next at it (inclusive) skips it.
    next = last === undefined || Number(last.found) < ASSIGN_CHUNK || last.upto === null ? undefined : { id: last.upto };
  }
  return groups;
}

/** The claimed batch's counts, totals, payout and seal, written once. */
const SEAL_BATCH = namedStatement(
  'seal_batch',
  `update ledger_batches set counts = @counts::jsonb, totals = @totals::jsonb, payout_id = @payout_id::uuid, seal = @seal
    where location_id = @location_id and id = @id
    returning ${BATCH_COLUMNS}`,
);

interface ClosingLine {
  id: string;
  type: LedgerLineType;
  sourceType: 'batch' | 'payout';
  sourceId: string;
  businessDate: string;
  amount: number;
  batchId: string | null;
}

/**
 * Closes one business day of a location and currency, in one transaction:
 * claims the batch, gives it its lines, and makes what they come to a
 * payout (with its PAYOUT line, so the batch sums to zero) or, below zero,
 * carries the deficit into the next batch. Records `batch.closed` and
 * `payout.created`. Undefined if another close (a replica, the clock) has it.
 */
export async function closeBatch(db: Knex, due: DueBatch): Promise<{ batchId: string; payoutId: string | null } | undefined> {
  const id = batchIdOf(due.locationId, due.businessDate, due.currency);
  const values = { location_id: due.locationId, id, business_date: due.businessDate, currency: due.currency };
  return inTransaction(db, async (trx) => {
    const closedAt = clockNow();
    const [claimed] = await runNamed<{ id: string }>(trx, CLAIM_BATCH, { ...values, closed_at: closedAt });
    if (claimed === undefined) return undefined;
    const [holidays] = await runPrepared<{ bank_holidays: string }>(trx, BANK_HOLIDAYS_ON, [due.locationId, due.businessDate]);
    const groups = await assignLines(trx, values);
    const { totals } = totalsOf(groups);
    const available = totals.net + totals.carriedIn;
    const lines: ClosingLine[] = [];
    let payout: PayoutRow | undefined;
    if (available > 0) {
      const payoutId = uuidv7();
      payout = {
        location_id: due.locationId,
        id: payoutId,
        batch_id: id,
        amount: available,
        currency: due.currency,
        status: 'PENDING',
        arrival_date: arrivalDateOf(due.businessDate, JSON.parse(holidays?.bank_holidays ?? '[]') as string[]),
        trace_id: `SBX${due.businessDate.replace(/-/g, '')}${payoutId.slice(-8).toUpperCase()}`,
        failure_code: null,
        created_at: closedAt,
        updated_at: closedAt,
      };
      await trx('payouts').insert(payout);
      lines.push({ id: uuidv7(), type: 'PAYOUT', sourceType: 'payout', sourceId: payoutId, businessDate: due.businessDate, amount: -available, batchId: id });
    } else if (available < 0) {
      lines.push(
        { id: uuidv7(), type: 'CARRY_FORWARD_OUT', sourceType: 'batch', sourceId: id, businessDate: due.businessDate, amount: -available, batchId: id },
        {
          id: uuidv7(),
          type: 'CARRY_FORWARD_IN',
          sourceType: 'batch',
          sourceId: id,
          businessDate: addDays(due.businessDate, 1),
          amount: available,
          batchId: null,
        },
      );
    }
    if (lines.length > 0) {
      await trx('ledger_lines').insert(
        lines.map((line) => ({
          location_id: due.locationId,
          id: line.id,
          type: line.type,
          source_type: line.sourceType,
          source_id: line.sourceId,
          occurred_at: closedAt,
          business_date: line.businessDate,
          currency: due.currency,
          gross: line.amount,
          net: line.amount,
          batch_id: line.batchId,
        })),
      );
    }
    const closing = lines.filter((line) => line.batchId === id);
    const sealed = totalsOf([...groups, ...closing.map((line) => ({ type: line.type, count: 1, gross: line.amount, tip: 0, fee: 0, net: line.amount }))]);
    const seal = createHash('sha256')
      .update(JSON.stringify({ id, ...sealed }))
      .digest('base64url');
    const [row] = await runNamed<BatchRow>(trx, SEAL_BATCH, {
      ...values,
      counts: JSON.stringify(sealed.counts),
      totals: JSON.stringify(sealed.totals),
      payout_id: payout?.id ?? null,
      seal,
    });
    const batch = toBatch(row as BatchRow);
    const write = serviceWrite(trx, due.locationId);
    await recordEvents(trx, write, [
      { type: 'batch.closed', customerId: null, object: batch, previous: null },
      ...(payout === undefined ? [] : [{ type: 'payout.created' as const, customerId: null, object: toPayout(payout), previous: null }]),
    ]);
    return { batchId: id, payoutId: payout?.id ?? null };
  });
}
