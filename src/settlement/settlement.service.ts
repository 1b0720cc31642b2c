import type { Knex } from 'knex';
import type { WriteContext } from '../change-log/write-context';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { DomainError } from '../platform/errors/domain-error';
import { StreamedFile } from '../platform/http/streamed-file';
import { addDays } from './banking-days';
import { closeBatch, dueBatches } from './batch-close.repository';
import { businessDateToday, closedBatch, closedBatches, linesOfBatch, linesOfIntent, newestBatchFirst, openBatches } from './batches.repository';
import { totalsOf } from './batch-totals';
import { ledgerCsv, ledgerCsvEtag } from './ledger-csv';
import { batchLinesInFileOrder } from './ledger-file.repository';
import { readLocationSettings, scheduleLocationSettings } from './location-settings.repository';
import { failPayout, findPayout, listPayouts, movePayoutsDue, PAYOUT_MOVING } from './payouts.repository';
import { salesDayGroups, salesDayLines } from './sales-days.repository';
import type { Batch, ChangeLocationSettingsInput, LedgerLine, LocationSettings, Payout, SalesDay } from './settlement.schemas';

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
      disputes: {
        ...base.disputes,
        ...input.disputes,
        responseDays: { ...base.disputes.responseDays, ...input.disputes?.responseDays },
        decisionDays: { ...base.disputes.decisionDays, ...input.disputes?.decisionDays },
      },
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
    return [...open.map(({ range: _range, ...batch }) => batch), ...closed.map(({ seal: _seal, ...batch }) => batch)].sort(newestBatchFirst);
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

  /** A batch's lines as a CSV file, what closed it last; with the ETag it keeps once CLOSED. */
  async batchFile(db: Knex, locationId: string, id: string): Promise<{ file: StreamedFile; etag?: string }> {
    const { seal, range, ...batch } = await this.batch(db, locationId, id);
    const pages = (async function* () {
      for await (const lines of batchLinesInFileOrder(db, locationId, { ...batch, range })) yield { batch, lines };
    })();
    const file = new StreamedFile('text/csv', `batch-${batch.businessDate}-${batch.currency}.csv`, ledgerCsv(pages));
    return seal === undefined ? { file } : { file, etag: ledgerCsvEtag([seal]) };
  }

  /**
   * The CLOSED batches of business dates `from` to `to` (at most 31 days) as
   * one CSV file, oldest first, each batch's lines in a file's order: every
   * batch sums to zero, and so does the file.
   */
  async rangeFile(db: Knex, locationId: string, range: BatchRange, currency?: string): Promise<{ file: StreamedFile; etag: string }> {
    const { from, to } = await this.rangeOf(db, locationId, range);
    const batches = (await closedBatches(db, locationId, from, to)).filter((batch) => currency === undefined || batch.currency === currency).reverse();
    const pages = (async function* () {
      for (const { seal: _seal, ...batch } of batches) {
        for await (const lines of batchLinesInFileOrder(db, locationId, batch)) yield { batch, lines };
      }
    })();
    const file = new StreamedFile('text/csv', `ledger-${from}-to-${to}${currency === undefined ? '' : `-${currency}`}.csv`, ledgerCsv(pages));
    return { file, etag: ledgerCsvEtag([from, to, currency ?? '*', ...batches.map((batch) => batch.seal)]) };
  }

  /** The sales day of `businessDate` (the lines about its captures, wherever they landed): its counts and totals. */
  async salesDay(db: Knex, locationId: string, businessDate: string, given: string | undefined): Promise<SalesDay> {
    const currency = given ?? (this.options.currencies[0] as string);
    const { counts, totals } = totalsOf(await salesDayGroups(db, locationId, businessDate, currency));
    const { carriedIn: _in, carriedOut: _out, payout: _payout, ...sales } = totals;
    return { businessDate, currency, counts, totals: sales };
  }

  /** A page of the sales day's lines, in the order written. */
  async salesDayLines(
    db: Knex,
    locationId: string,
    businessDate: string,
    query: { currency?: string | undefined; limit: number; startingAfter?: string | undefined },
    cursorOf: string,
  ): Promise<LedgerLine[]> {
    const day = { locationId, businessDate, currency: query.currency ?? (this.options.currencies[0] as string) };
    await refuseUnknownCursor(query.startingAfter, cursorOf, async (line) => (await salesDayLines(db, day, { limit: 1, only: line })).length === 1);
    return salesDayLines(db, day, { limit: query.limit, startingAfter: query.startingAfter });
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
