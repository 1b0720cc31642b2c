/**
 * A whole number with its thousands grouped by commas (20000 → "20,000"), for
 * the document's prose: what `toLocaleString('en-US')` writes, without loading
 * ICU's number formats into a process that only declares its operations.
 */
export function withThousands(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a safe integer`);
  return String(value).replace(/\B(?=(\d{3})+$)/g, ',');
}
