/**
 * Payout dates (docs/settlement.md, Payouts): a batch's payout arrives on
 * the next banking day strictly after the day its batch closed, the
 * business date's next calendar day; Saturdays, Sundays and the location's
 * bank holidays are not banking days. This reproduces Toast's deposit table
 * for its 4 a.m. batch: Monday's sales arrive Wednesday, Thursday's,
 * Friday's and Saturday's Monday, Sunday's Tuesday.
 */
const DAY_MS = 86_400_000;

/** `date` (YYYY-MM-DD) moved by `days`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function isBankingDay(date: string, holidays: ReadonlySet<string>): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !holidays.has(date);
}

/** The arrival date of the payout of business date `businessDate`'s batch. */
export function arrivalDateOf(businessDate: string, bankHolidays: readonly string[]): string {
  const holidays = new Set(bankHolidays);
  const closedOn = addDays(businessDate, 1);
  let arrival = addDays(closedOn, 1);
  while (!isBankingDay(arrival, holidays)) arrival = addDays(arrival, 1);
  return arrival;
}
