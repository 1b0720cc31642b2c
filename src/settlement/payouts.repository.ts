import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { recordEvents } from '../change-log/record-events';
import { serviceWrite, type WriteContext } from '../change-log/write-context';
import { clockNow } from '../platform/clock/location-clock';
import { inTransaction } from '../platform/db/in-transaction';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import { settingsInForce } from './business-day-sql';
import { businessDateToday } from './batches.repository';
import { PAYOUT_COLUMNS, payoutColumnsOf, toPayout, type PayoutRow } from './settlement-rows';
import type { Payout } from './settlement.schemas';

/** The statuses a payout still moves from: a sandbox failure or its arrival takes it on. */
export const PAYOUT_MOVING: readonly Payout['status'][] = ['PENDING', 'IN_TRANSIT'];
const MOVING_SQL = PAYOUT_MOVING.map((status) => `'${status}'`).join(', ');

const PAYOUT = preparedStatement('payout', `select ${PAYOUT_COLUMNS} from payouts where location_id = ? and id = ?`);

export async function findPayout(db: Knex, locationId: string, id: string): Promise<Payout | undefined> {
  const [row] = await runPrepared<PayoutRow>(db, PAYOUT, [locationId, id]);
  return row === undefined ? undefined : toPayout(row);
}

const PAYOUTS_OF_DATES = preparedStatement(
  'payouts_of_dates',
  `select ${payoutColumnsOf('payout')}
     from payouts payout join ledger_batches batch on batch.location_id = payout.location_id and batch.id = payout.batch_id
    where payout.location_id = ? and batch.business_date between ?::date and ?::date and (?::text is null or payout.status = ?::text)
    order by batch.business_date desc, payout.id`,
);

/** The payouts of batches whose business dates are `from` to `to`, newest first, of one status or all. */
export async function listPayouts(db: Knex, locationId: string, range: { from: string; to: string; status?: Payout['status'] | undefined }): Promise<Payout[]> {
  const status = range.status ?? null;
  return (await runPrepared<PayoutRow>(db, PAYOUTS_OF_DATES, [locationId, range.from, range.to, status, status])).map(toPayout);
}

/**
 * Payouts whose day has come on their location's clock: IN_TRANSIT once
 * the local date is past the day their batch closed, PAID on their arrival
 * date. Across locations, or at one.
 */
const PAYOUTS_DUE = preparedStatement(
  'payouts_due',
  `select ${payoutColumnsOf('payout')},
          case when local.today >= payout.arrival_date then 'PAID' else 'IN_TRANSIT' end as due_status
     from payouts payout
     join ledger_batches batch on batch.location_id = payout.location_id and batch.id = payout.batch_id
     cross join lateral (select (now() at time zone settings.time_zone)::date as today
                           from (${settingsInForce('payout.location_id', 'now()')}) as settings) as local
    where payout.status in (${MOVING_SQL}) and (payout.location_id = ? or ?::text is null)
      and (local.today >= payout.arrival_date or (payout.status = 'PENDING' and local.today > batch.business_date + 1))
    order by payout.arrival_date
    limit ?`,
);

const MOVE_PAYOUT = preparedStatement(
  'move_payout',
  `update payouts set status = ?, failure_code = ?, updated_at = ? where location_id = ? and id = ? and status = ? returning ${PAYOUT_COLUMNS}`,
);

/** Moves a payout from the status it was read in, with its event (`payout.paid`; none for IN_TRANSIT), or nothing if it moved meanwhile. */
async function movePayout(
  db: Knex,
  read: Payout & { locationId: string },
  to: Payout['status'],
  failureCode: string | null,
  write: WriteContext,
  then?: (trx: Knex.Transaction) => Promise<void>,
): Promise<Payout | undefined> {
  return inTransaction(db, async (trx) => {
    const [row] = await runPrepared<PayoutRow>(trx, MOVE_PAYOUT, [to, failureCode, clockNow(), read.locationId, read.id, read.status]);
    if (row === undefined) return undefined;
    const moved = toPayout(row);
    if (to === 'PAID' || to === 'FAILED') {
      await recordEvents(trx, write, [
        { type: to === 'PAID' ? 'payout.paid' : 'payout.failed', customerId: null, object: moved, previous: { status: read.status } },
      ]);
    }
    await then?.(trx);
    return moved;
  });
}

/** The payouts whose day has come, moved on; answers how many moved. */
export async function movePayoutsDue(db: Knex, limit: number, locationId?: string): Promise<number> {
  const due = await runPrepared<PayoutRow & { due_status: Payout['status'] }>(db, PAYOUTS_DUE, [locationId ?? null, locationId ?? null, limit]);
  let moved = 0;
  for (const row of due) {
    const write = serviceWrite(db, row.location_id);
    if (await movePayout(db, { ...toPayout(row), locationId: row.location_id }, row.due_status, null, write)) moved += 1;
  }
  return moved;
}

/**
 * The sandbox's failed deposit: the payout FAILED with `failureCode`, and
 * its amount back in the location's balance as a CARRY_FORWARD_IN line of
 * the open batch, in one transaction. Undefined if it had left PENDING and
 * IN_TRANSIT meanwhile.
 */
export async function failPayout(write: WriteContext, read: Payout, failureCode: string): Promise<Payout | undefined> {
  return movePayout(write.db, { ...read, locationId: write.locationId }, 'FAILED', failureCode, write, async (trx) => {
    const today = await businessDateToday(trx, write.locationId);
    await trx('ledger_lines').insert({
      location_id: write.locationId,
      id: uuidv7(),
      type: 'CARRY_FORWARD_IN',
      source_type: 'payout',
      source_id: read.id,
      occurred_at: clockNow(),
      business_date: today,
      currency: read.currency,
      gross: read.amount,
      net: read.amount,
    });
  });
}
