import type { Knex } from 'knex';
import type { WriteContext } from '../change-log/write-context';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { DomainError } from '../platform/errors/domain-error';
import { addDays } from './banking-days';
import { closeBatch, dueBatches } from './batch-close.repository';
import { businessDateToday, closedBatch, closedBatches, linesOfBatch, linesOfIntent, openBatches } from './batches.repository';
import { readLocationSettings, scheduleLocationSettings } from './location-settings.repository';
import { failPayout, findPayout, listPayouts, movePayoutsDue, PAYOUT_MOVING } from './payouts.repository';
import type { Batch, ChangeLocationSettingsInput, LedgerLine, LocationSettings, Payout } from './settlement.schemas';

/** The longest range of business dates one list reads (Toast's month range). */
export const MAX_RANGE_DAYS = 31;

/** What one run of a sweep takes on; the next run takes the rest. */
const SWEEP_BATCH = 100;

export interface BatchRange {
  from?: string | undefined;
  to?: string | undefined;
}

type FoundBatch = Batch & { seal?: string; range?: Parameters<typeof linesOfBatch>[2]['range'] };

/**
 * Where money lands (docs/settlement.md): the location's settings, its
 * business days' batches and their payouts, and the reads an accountant
 * reconciles with. The ledger lines themselves are written by the
 * movements' own statements (ledger-line-statements.ts).
 */
export class SettlementService {
  /** `currencies`: PAYMENT_CURRENCIES, the first the current batch's by default; `sandbox`: whether the sandbox's triggers exist. */
  constructor(private readonly options: { currencies: readonly string[]; sandbox: boolean }) {}

  settings(db: Knex, locationId: string): Promise<LocationSettings> {
    return readLocationSettings(db, locationId);
  }

  /** A change, in force from the first business day not yet begun (answered as `scheduled`). */
  async changeSettings(write: WriteContext, input: ChangeLocationSettingsInput): Promise<LocationSettings> {
    const changed = await scheduleLocationSettings(write, (base) => ({
      timeZone: input.timeZone ?? base.timeZone,
      closeoutHour: input.closeoutHour ?? base.closeoutHour,
      fees: { ...base.fees, ...input.fees },
      bankHolidays: [...(input.bankHolidays ?? base.bankHolidays)].sort(),
      effectiveFromBusinessDate: null,
    }));
    if (changed === undefined) {
      throw new DomainError('VALIDATION_FAILED', { problems: [{ fieldName: 'timeZone', message: 'Must be a time zone the database knows.' }] });
    }
    return changed;
  }

  /** Closes every business day that is due, oldest first (at one location, or across all on real time); answers how many. */
  async closeDue(db: Knex, locationId?: string): Promise<number> {
    let closed = 0;
    for (const due of await dueBatches(db, SWEEP_BATCH, locationId)) if (await closeBatch(db, due)) closed += 1;
    return closed;
  }

  /** Moves on the payouts whose day has come (IN_TRANSIT, then PAID on the arrival date); answers how many. */
  movePayouts(db: Knex, locationId?: string): Promise<number> {
    return movePayoutsDue(db, SWEEP_BATCH, locationId);
  }

  /** The batches of business dates `from` to `to` (the last 31 days to today by default), open and closed, newest first. */
  async batches(db: Knex, locationId: string, range: BatchRange, status?: Batch['status']): Promise<Batch[]> {
    const { from, to } = await this.rangeOf(db, locationId, range);
    const open = status === 'CLOSED' ? [] : (await openBatches(db, locationId)).filter((batch) => batch.businessDate >= from && batch.businessDate <= to);
    const closed = status === 'OPEN' ? [] : await closedBatches(db, locationId, from, to);
    return [...open.map(({ range: _range, ...batch }) => batch), ...closed].sort(
      (a, b) => b.businessDate.localeCompare(a.businessDate) || a.currency.localeCompare(b.currency),
    );
  }

  /** Today's open batch in `currency`: 404 while nothing has happened today. */
  async currentBatch(db: Knex, locationId: string, given: string | undefined): Promise<Batch> {
    const currency = given ?? (this.options.currencies[0] as string);
    const today = await businessDateToday(db, locationId);
    const current = (await openBatches(db, locationId)).find((batch) => batch.businessDate === today && batch.currency === currency);
    if (current === undefined) throw new DomainError('BATCH_NOT_FOUND', { message: `Nothing has moved on business date ${today} in ${currency} yet.` });
    const { range: _range, ...batch } = current;
    return batch;
  }

  async batch(db: Knex, locationId: string, id: string): Promise<FoundBatch> {
    const found = (await closedBatch(db, locationId, id)) ?? (await openBatches(db, locationId)).find((batch) => batch.id === id);
    if (found === undefined) throw new DomainError('BATCH_NOT_FOUND');
    return found;
  }

  /** A page of a batch's lines, in the order written. */
  async batchLines(
    db: Knex,
    locationId: string,
    id: string,
    page: { limit: number; startingAfter?: string | undefined },
    cursorOf: string,
  ): Promise<LedgerLine[]> {
    const batch = await this.batch(db, locationId, id);
    await refuseUnknownCursor(page.startingAfter, cursorOf, async (line) => (await linesOfBatch(db, locationId, batch, { limit: 1, only: line })).length === 1);
    return linesOfBatch(db, locationId, batch, page);
  }

  payouts(db: Knex, locationId: string, range: BatchRange, status?: Payout['status']): Promise<Payout[]> {
    return this.rangeOf(db, locationId, range).then(({ from, to }) => listPayouts(db, locationId, { from, to, status }));
  }

  async payout(db: Knex, locationId: string, id: string): Promise<Payout> {
    const found = await findPayout(db, locationId, id);
    if (found === undefined) throw new DomainError('PAYOUT_NOT_FOUND');
    return found;
  }

  /** The sandbox's failed deposit: FAILED, its amount carried into the open batch; 409 once it has arrived or failed. */
  async failPayout(write: WriteContext, id: string, failureCode: string): Promise<Payout> {
    // With a real processor the trigger is not there, as for any path that is not.
    if (!this.options.sandbox) throw new DomainError('ROUTE_NOT_FOUND');
    const read = await this.payout(write.db, write.locationId, id);
    const failed = PAYOUT_MOVING.includes(read.status) ? await failPayout(write, read, failureCode) : undefined;
    if (failed === undefined) {
      const now = await this.payout(write.db, write.locationId, id);
      throw new DomainError('PAYOUT_STATUS_CONFLICT', { message: `The payout is ${now.status}: only a PENDING or IN_TRANSIT payout can fail.` });
    }
    return failed;
  }

  /** Every line of one payment, with the batch and payout each landed in. */
  intentTrail(db: Knex, locationId: string, paymentIntentId: string): Promise<LedgerLine[]> {
    return linesOfIntent(db, locationId, paymentIntentId);
  }

  /** A range of business dates, at most 31 days; the 31 days to today by default. */
  private async rangeOf(db: Knex, locationId: string, range: BatchRange): Promise<{ from: string; to: string }> {
    const to = range.to ?? (range.from === undefined ? await businessDateToday(db, locationId) : addDays(range.from, MAX_RANGE_DAYS - 1));
    const from = range.from ?? addDays(to, -(MAX_RANGE_DAYS - 1));
    if (from > to) throw new DomainError('VALIDATION_FAILED', { problems: [{ fieldName: 'from', message: 'Must not be after `to`.' }] });
    if (addDays(from, MAX_RANGE_DAYS - 1) < to) {
      throw new DomainError('VALIDATION_FAILED', { problems: [{ fieldName: 'to', message: `Must be within ${MAX_RANGE_DAYS} days of \`from\`.` }] });
    }
    return { from, to };
  }
}
