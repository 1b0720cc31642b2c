import pgUtils from 'pg/lib/utils';

type Normalize = typeof pgUtils.normalizeQueryConfig;

let installed = false;

/**
 * node-postgres copies every query's config by its property descriptors
 * before reading it, so as never to change the caller's object
 * (node-postgres#3720): a runtime call per query that was 3 % of a read's
 * CPU (docs/performance.md, Where a read's CPU goes). The configs the
 * service and Knex send are plain objects made for one call (sql-driver.ts,
 * Knex's pg client), which a spread copies alike, with the same guarantee;
 * values and a callback given beside one are added as pg adds them, and any
 * other config (a class of its own, a getter on its prototype) keeps pg's
 * own copy.
 * node-postgres#3743 reads the config without copying it: once a release has
 * it, this file goes (test/unit/platform/pg-query-config.test.ts says when).
 */
export function copyPlainQueryConfigsBySpread(): void {
  if (installed) return;
  installed = true;
  const pgCopy: Normalize = pgUtils.normalizeQueryConfig;
  const bySpread: Normalize = (config, values, callback) => {
    if (typeof config !== 'object' || config === null || Object.getPrototypeOf(config) !== Object.prototype) return pgCopy(config, values, callback);
    // The rest as pg does it: values given beside the config (or the callback in their place), then the callback.
    const copy = { ...config };
    if (values) {
      if (typeof values === 'function') copy.callback = values;
      else copy.values = values;
    }
    if (callback) copy.callback = callback;
    return copy;
  };
  pgUtils.normalizeQueryConfig = bySpread;
}
