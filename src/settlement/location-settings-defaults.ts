/**
 * A location's settings until it changes them (docs/settlement.md): Toast's
 * default business-day cutoff of 4 a.m. in the Eastern zone, and sandbox
 * fees shaped like a US card rate (2.9 % + 30¢), Toast's $15 dispute fee,
 * and refunds that give back their share of the fee, as Toast's "adjust the
 * fees". Each can be set to 0 for round numbers in a test.
 */
export const LOCATION_SETTINGS_DEFAULTS = {
  timeZone: 'America/New_York',
  closeoutHour: 4,
  fees: { percentBps: 290, fixed: 30, refundReturnsFee: true, disputeFee: 1500 },
  bankHolidays: [] as string[],
  /**
   * Disputes (docs/disputes.md): a chargeback's amount and fee are withdrawn
   * at once (Stripe; Toast takes two to four days), a won one does not give
   * the fee back (Toast, Stripe), and the days to answer and to decide are
   * Adyen's published windows by card brand (`other` for every brand not
   * named; an inquiry's answer is due in AMEX's 14 days whatever the brand).
   */
  disputes: {
    fundsWithdrawnAfterDays: 0,
    feeReturnedWhenWon: false,
    responseDays: { VISA: 18, MASTERCARD: 40, AMEX: 14, DISCOVER: 25, other: 18, inquiry: 14 },
    decisionDays: { VISA: 45, MASTERCARD: 70, AMEX: 50, DISCOVER: 60, other: 60 },
  },
} as const;

/** The defaults as Markdown, for docs/settlement.md (`npm run openapi` writes it there). */
export function settingsDefaultsTable(): string {
  const { timeZone, closeoutHour, fees, bankHolidays, disputes } = LOCATION_SETTINGS_DEFAULTS;
  const days = (byBrand: Record<string, number>) =>
    Object.entries(byBrand)
      .map(([brand, count]) => `${brand} ${count}`)
      .join(', ');
  return [
    '| Setting | Default |',
    '|---|---|',
    `| \`timeZone\` | \`${timeZone}\` |`,
    `| \`closeoutHour\` | ${closeoutHour} (the business day ends at ${String(closeoutHour).padStart(2, '0')}:00 local) |`,
    `| \`fees.percentBps\` | ${fees.percentBps} (${fees.percentBps / 100} % of each capture) |`,
    `| \`fees.fixed\` | ${fees.fixed} (minor units per capture) |`,
    `| \`fees.refundReturnsFee\` | ${fees.refundReturnsFee} |`,
    `| \`fees.disputeFee\` | ${fees.disputeFee} (minor units per chargeback) |`,
    `| \`bankHolidays\` | ${bankHolidays.length === 0 ? 'none' : bankHolidays.join(', ')} |`,
    `| \`disputes.fundsWithdrawnAfterDays\` | ${disputes.fundsWithdrawnAfterDays} (a chargeback's amount and fee are withdrawn when it opens) |`,
    `| \`disputes.feeReturnedWhenWon\` | ${disputes.feeReturnedWhenWon} |`,
    `| \`disputes.responseDays\` | ${days(disputes.responseDays)} |`,
    `| \`disputes.decisionDays\` | ${days(disputes.decisionDays)} |`,
  ].join('\n');
}
