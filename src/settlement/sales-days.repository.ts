import type { Knex } from 'knex';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
import { asNumbers, type LinesOfType } from './batch-totals';
import { LINES_WITH_PAYOUT } from './batches.repository';
import { toLine, type LineRow } from './settlement-rows';
import type { LedgerLine } from './settlement.schemas';

/**
 * A sales day (Toast's sales view, beside its deposit view): the lines about
 * the captures of one business date, the later refunds and failures against
 * them included, wherever they landed. Each line's `originalBusinessDate` is
 * its capture's date, so the day is the lines that carry it.
 */

const SALES_DAY_GROUPS = preparedStatement(
  'sales_day_groups',
  `select type, count(*)::int as count, sum(gross)::bigint as gross, sum(tip)::bigint as tip, sum(fee)::bigint as fee, sum(net)::bigint as net
     from ledger_lines where location_id = ? and original_business_date = ?::date and currency = ?
    group by type`,
);

export async function salesDayGroups(db: Knex, locationId: string, businessDate: string, currency: string): Promise<LinesOfType[]> {
  return (await runPrepared<LinesOfType>(db, SALES_DAY_GROUPS, [locationId, businessDate, currency])).map(asNumbers);
}

const SALES_DAY_LINES = namedStatement(
  'sales_day_lines',
  `${LINES_WITH_PAYOUT}
   where line.location_id = @location_id and line.original_business_date = @business_date::date and line.currency = @currency
     and (@starting_after::uuid is null or line.id > @starting_after::uuid) and (@only::uuid is null or line.id = @only::uuid)
   order by line.id limit @limit`,
);

/** A page of the sales day's lines in the order written, after `startingAfter` (or the one line `only`). */
export async function salesDayLines(
  db: Knex,
  day: { locationId: string; businessDate: string; currency: string },
  page: { limit: number; startingAfter?: string | undefined; only?: string },
): Promise<LedgerLine[]> {
  const rows = await runNamed<LineRow>(db, SALES_DAY_LINES, {
    location_id: day.locationId,
    business_date: day.businessDate,
    currency: day.currency,
    starting_after: page.startingAfter ?? null,
    only: page.only ?? null,
    limit: page.limit,
  });
  return rows.map(toLine);
}
