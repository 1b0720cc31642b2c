/** node-postgres's own helpers (lib/utils.js), which its package exports but does not type: the one pg-query-config.ts replaces. */
declare module 'pg/lib/utils' {
  interface QueryConfigLike {
    text?: string;
    name?: string;
    values?: unknown;
    callback?: unknown;
    [other: string]: unknown;
  }
  const utils: {
    normalizeQueryConfig(config: string | QueryConfigLike, values?: unknown, callback?: unknown): QueryConfigLike;
  };
  export default utils;
}
