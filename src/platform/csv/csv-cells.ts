/**
 * RFC 4180 text, one cell and one row at a time, for reports a spreadsheet
 * opens (docs/settlement.md, The reconciliation file).
 */

/** What a spreadsheet reads as the start of a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell of the caller's text, which a spreadsheet must show and never run: a leading formula character is escaped with a quote mark, as OWASP advises. */
export function textCell(value: string | null): string {
  if (value === null) return '';
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** A cell the service wrote (an id, a date, a type, an amount): as it is. */
export function plainCell(value: string | number | null): string {
  return value === null ? '' : String(value);
}

/** One record, its cells quoted where RFC 4180 needs it, ended by CRLF. */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(',')}\r\n`;
}

/** The digits after the point of a currency's major unit, from ISO 4217 as the runtime knows it (2 for USD, 0 for JPY, 3 for KWD). */
export function minorUnitDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** An amount in minor units as a decimal of major units (-1250 USD → -12.50), exact for any safe integer. */
export function majorUnits(minor: number, digits: number): string {
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const padded = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
