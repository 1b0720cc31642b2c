/**
 * The ledger's line types: what writes each, and its sign (docs/settlement.md
 * renders this table). Every money movement writes one line in its own
 * statement.
 */
export const LEDGER_LINE_TYPES = [
  { type: 'CAPTURE', source: 'payment_intent', when: 'an intent is captured', sign: '+ gross (of which tip), − fee', stripe: 'charge', adyen: 'Settled' },
  {
    type: 'REFUND',
    source: 'refund',
    when: 'a refund is created (PENDING counts, as `refundableAmount` does)',
    sign: "− amount; the capture's fee in proportion returned when `refundReturnsFee`",
    stripe: 'refund',
    adyen: 'Refunded',
  },
  {
    type: 'REFUND_FAILURE',
    source: 'refund',
    when: 'a refund turns FAILED',
    sign: 'the REFUND line reversed',
    stripe: 'refund_failure',
    adyen: 'RefundedReversed',
  },
  {
    type: 'DISPUTE_WITHDRAWAL',
    source: 'dispute',
    when: "a chargeback's funds are withdrawn (when it opens, or `disputes.fundsWithdrawnAfterDays` later)",
    sign: '− the disputed amount',
    stripe: 'adjustment (dispute)',
    adyen: 'Chargeback',
  },
  {
    type: 'DISPUTE_FEE',
    source: 'dispute',
    when: "with a chargeback's withdrawal",
    sign: '− the dispute fee (`fees.disputeFee`, as a fee)',
    stripe: 'adjustment (dispute fee)',
    adyen: 'Fee',
  },
  {
    type: 'DISPUTE_REINSTATEMENT',
    source: 'dispute',
    when: 'a chargeback whose funds were withdrawn is WON',
    sign: '+ the disputed amount',
    stripe: 'adjustment (dispute reversal)',
    adyen: 'ChargebackReversed',
  },
  {
    type: 'DISPUTE_FEE_RETURN',
    source: 'dispute',
    when: 'a won chargeback gives the fee back (`disputes.feeReturnedWhenWon`)',
    sign: '+ the dispute fee (a fee given back)',
    stripe: 'adjustment (dispute fee reversal)',
    adyen: 'Fee',
  },
  {
    type: 'CARRY_FORWARD_OUT',
    source: 'batch',
    when: 'a batch closes with its net and what it carried in below zero: no payout, the deficit moves on',
    sign: '+ the deficit (the batch sums to zero)',
    stripe: 'negative balance',
    adyen: 'BalanceTransfer',
  },
  {
    type: 'CARRY_FORWARD_IN',
    source: 'batch or payout',
    when: "the next open batch takes a closed batch's deficit, or a failed payout's amount",
    sign: '− the deficit, or + the failed payout',
    stripe: 'payout_failure',
    adyen: 'BalanceTransfer',
  },
  {
    type: 'PAYOUT',
    source: 'payout',
    when: "the batch's payout is created at its close",
    sign: '− the payout (the batch sums to zero)',
    stripe: 'payout',
    adyen: 'MerchantPayout',
  },
] as const;

export type LedgerLineType = (typeof LEDGER_LINE_TYPES)[number]['type'];
export const LINE_TYPES = LEDGER_LINE_TYPES.map((line) => line.type) as [LedgerLineType, ...LedgerLineType[]];

/** The lines a dispute writes (docs/disputes.md). */
export const DISPUTE_LINE_TYPES = [
  'DISPUTE_WITHDRAWAL',
  'DISPUTE_FEE',
  'DISPUTE_REINSTATEMENT',
  'DISPUTE_FEE_RETURN',
] as const satisfies readonly LedgerLineType[];
export type DisputeLineType = (typeof DISPUTE_LINE_TYPES)[number];

/** The movements a batch's `net` sums: every line but the carry-forwards and the payout. */
export const MOVEMENT_LINE_TYPES: readonly LedgerLineType[] = ['CAPTURE', 'REFUND', 'REFUND_FAILURE', ...DISPUTE_LINE_TYPES];

/** The lines a close writes to end its batch (at most one per batch): a file lists them last, so that its net column sums to zero. */
export const CLOSING_LINE_TYPES: readonly LedgerLineType[] = ['CARRY_FORWARD_OUT', 'PAYOUT'];

/** The table as Markdown, for docs/settlement.md and the document. */
export function lineTypesTable(): string {
  return [
    '| Type | Source | Written when | Sign | Stripe | Adyen |',
    '|---|---|---|---|---|---|',
    ...LEDGER_LINE_TYPES.map((line) => `| \`${line.type}\` | ${line.source} | ${line.when} | ${line.sign} | ${line.stripe} | ${line.adyen} |`),
  ].join('\n');
}
