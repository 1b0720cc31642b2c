/**
 * Compares two strings by their UTF-16 code units, as `Array.prototype.sort`
 * does by default and PostgreSQL's `collate "C"`: the same order on every
 * host. `localeCompare` would order by the host's locale, and its first call
 * loads ICU's collation data, megabytes of every process's memory
 * (docs/performance-history.md, Memory: locale data).
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
