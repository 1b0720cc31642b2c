import { z } from 'zod';
import { int32 } from '../platform/validation/int32';
import { pageLimit, pageOf } from '../platform/validation/page-query';
import { uuidValue } from '../platform/validation/text.schemas';
import { LINE_TYPES } from './ledger-line-types';
import { LOCATION_SETTINGS_DEFAULTS as DEFAULTS } from './location-settings-defaults';

/** A business date, `YYYY-MM-DD` in the location's zone, checked to be a real date. */
export const businessDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Must be a date as YYYY-MM-DD.', abort: true })
  .length(10)
  .refine((value) => new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), { message: 'Must be a date that exists.' })
  .meta({ format: 'date', example: '2026-11-27' });

/** An IANA time zone name the runtime knows (`America/New_York`); PostgreSQL's list is checked when it is stored. */
const timeZone = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_+\-/]*$/, { message: 'Must be an IANA time zone name, e.g. America/New_York.', abort: true })
  .refine(
    (value) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: value });
        return !/^[+-]?\d/.test(value);
      } catch {
        return false;
      }
    },
    { message: 'Must be an IANA time zone name, e.g. America/New_York.' },
  );

const feesSchema = z.strictObject({
  percentBps: int32(0, 10_000).meta({ description: 'The percentage of each capture taken as its fee, in basis points (290 is 2.9 %).' }),
  fixed: int32(0, 10_000).meta({ description: 'The fixed part of each capture\u2019s fee, in minor units.' }),
  refundReturnsFee: z.boolean().meta({ description: "Whether a refund gives back the capture's fee in proportion to what it refunds." }),
  disputeFee: int32(0, 100_000).meta({ description: 'The fee of each chargeback, in minor units (used by disputes).' }),
});

const bankHolidays = z
  .array(businessDate)
  .max(366)
  .refine((dates) => new Set(dates).size === dates.length, { message: 'Must not name a date twice.' })
  .meta({ description: 'Dates on which no payout arrives, besides Saturdays and Sundays.' });

const days = (what: string) => int32(1, 365).meta({ description: what });
const responseDays = z.strictObject({
  VISA: days('Days a VISA chargeback may be answered.'),
  MASTERCARD: days('Days a MASTERCARD chargeback may be answered.'),
  AMEX: days('Days an AMEX chargeback may be answered.'),
  DISCOVER: days('Days a DISCOVER chargeback may be answered.'),
  other: days('Days a chargeback of any other brand may be answered.'),
  inquiry: days('Days an inquiry may be answered, whatever the brand.'),
});
const decisionDays = z.strictObject({
  VISA: days('Days from submitted evidence to the decision of a VISA dispute.'),
  MASTERCARD: days('Days from submitted evidence to the decision of a MASTERCARD dispute.'),
  AMEX: days('Days from submitted evidence to the decision of an AMEX dispute.'),
  DISCOVER: days('Days from submitted evidence to the decision of a DISCOVER dispute.'),
  other: days('Days from submitted evidence to the decision of a dispute of any other brand.'),
});

const disputeRulesSchema = z.strictObject({
  fundsWithdrawnAfterDays: int32(0, 30).meta({
    description: "Days after a chargeback opens that its amount and the dispute fee are withdrawn: 0 at once (Stripe's way), 2 to 4 as Toast.",
  }),
  feeReturnedWhenWon: z.boolean().meta({ description: 'Whether a won chargeback gives the dispute fee back as well as its amount.' }),
  responseDays: responseDays.meta({ description: "Days to answer, from the dispute's opening (Adyen's published windows by default)." }),
  decisionDays: decisionDays.meta({ description: 'Days from submitted evidence to the decision.' }),
});

export type DisputeRules = z.infer<typeof disputeRulesSchema>;

const settingsShape = {
  timeZone: timeZone.meta({ description: 'The IANA zone the business day and the payout dates are counted in.' }),
  closeoutHour: int32(0, 12).meta({ description: "The hour, local, at which a business day ends (Toast's business-day cutoff, 0\u201312)." }),
  fees: feesSchema.meta({ description: 'The sandbox fee rules.' }),
  bankHolidays,
  disputes: disputeRulesSchema.meta({ description: 'How disputes run at the location (docs/disputes.md).' }),
};

export const changeLocationSettingsRequestSchema = z
  .strictObject({
    timeZone: settingsShape.timeZone.optional(),
    closeoutHour: settingsShape.closeoutHour.optional(),
    fees: feesSchema.partial().optional().meta({ description: 'The fee rules to change; those left out stay.' }),
    bankHolidays: bankHolidays.optional(),
    disputes: z
      .strictObject({
        fundsWithdrawnAfterDays: disputeRulesSchema.shape.fundsWithdrawnAfterDays.optional(),
        feeReturnedWhenWon: disputeRulesSchema.shape.feeReturnedWhenWon.optional(),
        responseDays: responseDays.partial().optional(),
        decisionDays: decisionDays.partial().optional(),
      })
      .optional()
      .meta({ description: 'The dispute rules to change; those left out stay.' }),
  })
  .meta({ id: 'ChangeLocationSettingsRequest', example: { closeoutHour: 3, fees: { percentBps: 0, fixed: 0 } } });

export type ChangeLocationSettingsInput = z.output<typeof changeLocationSettingsRequestSchema>;

const SETTINGS_EXAMPLE = { ...DEFAULTS, bankHolidays: ['2026-12-25'], effectiveFromBusinessDate: '2026-11-28' };

export const locationSettingsVersionSchema = z
  .strictObject({
    ...settingsShape,
    effectiveFromBusinessDate: businessDate
      .nullable()
      .meta({ description: 'The first business date these settings count; null for the defaults, in force before any change.' }),
  })
  .meta({ id: 'LocationSettingsVersion', example: SETTINGS_EXAMPLE });

export type LocationSettingsVersion = z.infer<typeof locationSettingsVersionSchema>;

export const locationSettingsSchema = z
  .strictObject({
    ...locationSettingsVersionSchema.shape,
    currentBusinessDate: businessDate.meta({ description: 'The business date now, on the location\u2019s clock.' }),
    scheduled: locationSettingsVersionSchema
      .nullable()
      .meta({ description: 'A change made but not in force yet: the settings from its `effectiveFromBusinessDate` on.' }),
  })
  .meta({ id: 'LocationSettings', example: { ...SETTINGS_EXAMPLE, currentBusinessDate: '2026-11-28', scheduled: null } });

export type LocationSettings = z.infer<typeof locationSettingsSchema>;

/** An amount summed over lines (a day's captures may pass any one payment's bound), in minor units. */
const MAX_SUM = 999_999_999_999_999;
const money = (description: string) =>
  z
    .int()
    .min(-MAX_SUM)
    .max(MAX_SUM)
    .meta({ format: 'int64', description: `${description}, in minor units.` });
const count = int32(0, 2_147_483_647);

export const BATCH_STATUSES = ['OPEN', 'CLOSED'] as const;

export const BATCH_EXAMPLE = {
  id: '4b0c8f9e-2d7a-5c31-9e84-61f0a2b3c4d5',
  businessDate: '2026-11-27',
  currency: 'USD',
  status: 'CLOSED',
  timeZone: 'America/New_York',
  closeoutHour: 4,
  opensAt: '2026-11-27T09:00:00.000Z',
  closesAt: '2026-11-28T09:00:00.000Z',
  closedAt: '2026-11-28T09:00:02.311Z',
  counts: { captures: 2, refunds: 1, refundFailures: 0, disputes: 0, lines: 4 },
  totals: { gross: 2900, tips: 400, refunds: -500, refundFailures: 0, disputes: 0, fees: 118, net: 2282, carriedIn: 0, carriedOut: 0, payout: 2282 },
  payoutId: '019ac9a4-0f1e-7a2b-8c3d-4e5f6a7b8c9d',
};

export const LINE_EXAMPLE = {
  id: '019ac5e1-7b2c-7d3e-8f4a-5b6c7d8e9f0a',
  batchId: BATCH_EXAMPLE.id,
  type: 'CAPTURE',
  sourceType: 'payment_intent',
  sourceId: '019ac5e1-6a1b-7c2d-8e3f-4a5b6c7d8e9f',
  paymentIntentId: '019ac5e1-6a1b-7c2d-8e3f-4a5b6c7d8e9f',
  refundId: null,
  externalReferenceId: 'order-1042',
  occurredAt: '2026-11-27T23:41:07.220Z',
  businessDate: '2026-11-27',
  originalBusinessDate: '2026-11-27',
  redatedFrom: null,
  currency: 'USD',
  gross: 1450,
  tip: 200,
  fee: 72,
  net: 1378,
  card: { brand: 'VISA', lastFour: '4242' },
  payoutId: BATCH_EXAMPLE.payoutId,
};

const PAYOUT_EXAMPLE = {
  id: BATCH_EXAMPLE.payoutId,
  batchId: BATCH_EXAMPLE.id,
  amount: 2282,
  currency: 'USD',
  status: 'PENDING',
  arrivalDate: '2026-11-30',
  traceId: 'SBX202611274E5F6A7B',
  failureCode: null,
  createdAt: '2026-11-28T09:00:02.311Z',
};

export const batchParamsSchema = z.object({ id: uuidValue.meta({ description: 'Batch identifier.', param: { id: 'BatchId' } }) });

export const batchSchema = z
  .strictObject({
    id: z.uuid().meta({ description: 'The same while OPEN and once CLOSED: made of the location, the business date and the currency.' }),
    businessDate,
    currency: z.string(),
    status: z.enum(BATCH_STATUSES).meta({ description: 'OPEN with running totals until its day closes; CLOSED never changes.' }),
    timeZone: z.string(),
    closeoutHour: int32(0, 12),
    opensAt: z.string().meta({ description: 'The business day\u2019s first instant, ISO 8601 UTC.' }),
    closesAt: z.string().meta({ description: 'The instant it ends (the next day\u2019s first), ISO 8601 UTC.' }),
    closedAt: z.string().nullable().meta({ description: 'When the close ran; null while OPEN.' }),
    counts: z.strictObject({
      captures: count,
      refunds: count,
      refundFailures: count,
      disputes: count.meta({ description: 'Chargebacks whose funds were withdrawn in it.' }),
      lines: count,
    }),
    totals: z.strictObject({
      gross: money('What its captures took, tips included'),
      tips: money('Of which tips'),
      refunds: money('What its refunds gave back (negative)'),
      refundFailures: money('What failed refunds brought back'),
      disputes: money('What chargebacks withdrew (negative) and won ones reinstated'),
      fees: money('Fees (dispute fees among them), less those given back'),
      net: money('The sum of its movements\u2019 nets: net = payout + carriedOut \u2212 carriedIn'),
      carriedIn: money('What the batches before it carried into it (a deficit is negative; a failed payout positive)'),
      carriedOut: money('The deficit it carried to the next batch (negative), or 0'),
      payout: money('Its payout\u2019s amount, or 0'),
    }),
    payoutId: z.uuid().nullable(),
  })
  .meta({ id: 'Batch', example: BATCH_EXAMPLE });

export type Batch = z.infer<typeof batchSchema>;

export const ledgerLineSchema = z
  .strictObject({
    id: z.uuid(),
    batchId: z.uuid().nullable().meta({ description: 'The closed batch it landed in; null while it waits for its day to close.' }),
    type: z.enum(LINE_TYPES),
    sourceType: z.string().meta({ description: 'What moved the money: payment_intent, refund, dispute, batch or payout.' }),
    sourceId: z.uuid(),
    paymentIntentId: z.uuid().nullable(),
    refundId: z.uuid().nullable(),
    externalReferenceId: z.string().nullable(),
    occurredAt: z.string().meta({ description: 'When the movement committed, on the location\u2019s clock, ISO 8601 UTC.' }),
    businessDate,
    originalBusinessDate: businessDate.nullable().meta({ description: 'The business date of the capture it is about (the sales date).' }),
    redatedFrom: businessDate.nullable().meta({ description: 'The date it had, when it committed after that day had closed.' }),
    currency: z.string(),
    gross: money('The money moved, signed for the merchant'),
    tip: money('Of which tip'),
    fee: money('The fee it costs (negative: given back)'),
    net: money('gross \u2212 fee'),
    card: z.strictObject({ brand: z.string(), lastFour: z.string() }).nullable(),
    payoutId: z.uuid().nullable().meta({ description: 'The payout of the batch it landed in; null while it waits, or when the batch paid none.' }),
  })
  .meta({ id: 'LedgerLine', example: LINE_EXAMPLE });

export type LedgerLine = z.infer<typeof ledgerLineSchema>;

export const PAYOUT_STATUSES = ['PENDING', 'IN_TRANSIT', 'PAID', 'FAILED'] as const;

export const payoutSchema = z
  .strictObject({
    id: z.uuid(),
    batchId: z.uuid(),
    amount: money('What it deposits'),
    currency: z.string(),
    status: z.enum(PAYOUT_STATUSES),
    arrivalDate: businessDate.meta({ description: 'The next banking day strictly after its batch closed: weekends and bank holidays skipped.' }),
    traceId: z.string().meta({ description: 'The sandbox deposit trace, as a bank statement shows it.' }),
    failureCode: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Payout', example: PAYOUT_EXAMPLE });

export type Payout = z.infer<typeof payoutSchema>;

/** A range of business dates: `from` and `to` (both included, at most 31 days apart); the 31 days to today when both are left out. */
const range = {
  from: businessDate.optional().meta({
    description: 'The first business date (YYYY-MM-DD); 30 days before `to` when left out.',
    example: '2026-11-01',
    param: { id: 'fromBusinessDate' },
  }),
  to: businessDate.optional().meta({
    description: 'The last business date, at most 30 days after `from`; today (or `from` + 30 days) when left out.',
    example: '2026-11-27',
    param: { id: 'toBusinessDate' },
  }),
};

export const listBatchesQuerySchema = z.object({
  ...range,
  status: z.enum(BATCH_STATUSES).optional().meta({ description: 'Only OPEN or only CLOSED batches.', example: 'CLOSED' }),
  limit: pageLimit('Batches'),
  startingAfter: uuidValue
    .optional()
    .meta({ description: 'The last batch of the previous page (its `id`): this page continues after it, newest first.', example: BATCH_EXAMPLE.id }),
});

const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, { message: 'Must be an ISO 4217 code in upper case, e.g. USD.' })
  .length(3);

export const currentBatchQuerySchema = z.object({
  currency: currencyCode.optional().meta({ description: 'The batch of this currency; the first of PAYMENT_CURRENCIES when left out.', example: 'USD' }),
});

export const batchLinesQuerySchema = z.object({
  limit: pageLimit('Lines'),
  startingAfter: uuidValue
    .optional()
    .meta({ description: 'The last line of the previous page (its `id`): this page continues after it, in the order written.', example: LINE_EXAMPLE.id }),
});

export const listPayoutsQuerySchema = z.object({
  ...range,
  status: z.enum(PAYOUT_STATUSES).optional().meta({ description: 'Only payouts in this status.', example: 'PAID' }),
  limit: pageLimit('Payouts'),
  startingAfter: uuidValue
    .optional()
    .meta({ description: 'The last payout of the previous page (its `id`): this page continues after it, newest first.', example: PAYOUT_EXAMPLE.id }),
});

export const payoutParamsSchema = z.object({ id: uuidValue.meta({ description: 'Payout identifier.', param: { id: 'PayoutId' } }) });

export const PAYOUT_FAILURE_CODES = ['could_not_process', 'account_closed'] as const;

export const failPayoutRequestSchema = z
  .strictObject({
    failureCode: z.enum(PAYOUT_FAILURE_CODES).default('could_not_process').meta({ description: 'Why the bank returned it.' }),
  })
  .meta({ id: 'FailPayoutRequest', example: { failureCode: 'account_closed' } });

export const batchListResponseSchema = pageOf(
  'batches',
  batchSchema,
  { items: 'batches', order: 'Newest first' },
  { id: 'BatchListResponse', example: { results: 1, batches: [BATCH_EXAMPLE], hasMore: false } },
);
export const ledgerLineListResponseSchema = pageOf(
  'lines',
  ledgerLineSchema,
  { items: 'lines', order: 'In the order written' },
  { id: 'LedgerLineListResponse', example: { results: 1, lines: [LINE_EXAMPLE], hasMore: true } },
);
export const payoutListResponseSchema = pageOf(
  'payouts',
  payoutSchema,
  { items: 'payouts', order: 'Newest first' },
  { id: 'PayoutListResponse', example: { results: 1, payouts: [PAYOUT_EXAMPLE], hasMore: false } },
);
export const ledgerTrailResponseSchema = z
  .strictObject({ lines: z.array(ledgerLineSchema).max(10_000).meta({ description: 'In the order written.' }) })
  .meta({ id: 'LedgerTrail', example: { lines: [LINE_EXAMPLE] } });

export const ledgerFileQuerySchema = z.object({
  ...range,
  currency: currencyCode.optional().meta({ description: 'Only the batches of this currency; every currency when left out.', example: 'USD' }),
});

export const salesDayParamsSchema = z.object({
  businessDate: businessDate.meta({ description: 'The business date of the captures (YYYY-MM-DD).', param: { id: 'SalesBusinessDate' } }),
});

const salesCurrency = currencyCode
  .optional()
  .meta({ description: 'The captures in this currency; the first of PAYMENT_CURRENCIES when left out.', example: 'USD' });

export const salesDayQuerySchema = z.object({ currency: salesCurrency });

export const salesDayLinesQuerySchema = z.object({
  currency: salesCurrency,
  limit: pageLimit('Lines'),
  startingAfter: uuidValue
    .optional()
    .meta({ description: 'The last line of the previous page (its `id`): this page continues after it, in the order written.', example: LINE_EXAMPLE.id }),
});

const { counts: batchCounts, totals: batchTotals } = batchSchema.shape;

export const salesDaySchema = z
  .strictObject({
    businessDate,
    currency: z.string(),
    counts: batchCounts.meta({ description: 'The captures of the date, and the refunds, failures and chargebacks against them so far.' }),
    totals: batchTotals
      .pick({ gross: true, tips: true, refunds: true, refundFailures: true, disputes: true, fees: true, net: true })
      .meta({ description: 'What the date\u2019s sales came to, less what was refunded of them since, on whatever day.' }),
  })
  .meta({
    id: 'SalesDay',
    example: {
      businessDate: BATCH_EXAMPLE.businessDate,
      currency: 'USD',
      counts: BATCH_EXAMPLE.counts,
      totals: { gross: 2900, tips: 400, refunds: -500, refundFailures: 0, disputes: 0, fees: 118, net: 2282 },
    },
  });

export type SalesDay = z.infer<typeof salesDaySchema>;
