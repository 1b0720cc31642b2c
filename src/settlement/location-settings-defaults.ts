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
} as const;

/** The defaults as Markdown, for docs/settlement.md (`npm run openapi` writes it there). */
export function settingsDefaultsTable(): string {
  const { timeZone, closeoutHour, fees, bankHolidays } = LOCATION_SETTINGS_DEFAULTS;
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
  ].join('\n');
}
