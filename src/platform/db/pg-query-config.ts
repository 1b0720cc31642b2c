import pgUtils from 'pg/lib/utils';

type Normalize = typeof pgUtils.normalizeQueryConfig;

let installed = false;

/**
 * node-postgres copies every query's config by its property descriptors
 * before reading it, so as never to change the caller's object
 * (node-postgres#3720): a runtime call per query that was 3 % of a read's
 * CPU (docs/performance.md, Where a read's CPU goes). The configs the
 * service sends are plain objects made for one call (sql-driver.ts), which a
 * spread copies alike, with the same guarantee; any other config, and any
 * call that passes values or a callback beside it, keeps pg's own copy.
 * node-postgres#3743 reads the config without copying it: once a release has
 * it, this file goes (test/unit/platform/pg-query-config.test.ts says when).
 */
export function copyPlainQueryConfigsBySpread(): void {
  if (installed) return;
  installed = true;
  const pgCopy: Normalize = pgUtils.normalizeQueryConfig;
  const bySpread: Normalize = (config, values, callback) =>
    values === undefined && callback === undefined && typeof config === 'object' && config !== null && Object.getPrototypeOf(config) === Object.prototype
      ? { ...config }
      : pgCopy(config, values, callback);
  pgUtils.normalizeQueryConfig = bySpread;
}
