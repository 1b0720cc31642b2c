import type { Logger } from '../logger';

/**
 * Runs a purge of expired rows about a minute after start, then every
 * `intervalMs`, logging what it removed and any failure (it runs again at the
 * next turn). Rows past their time are never used whether or not they are
 * purged yet; purging only keeps the tables small. The timers are unref'd, so
 * they never hold a stopping process open.
 */
export function schedulePurge(logger: Logger, what: string, intervalMs: number, purge: () => Promise<number>): void {
  const run = () => {
    purge().then(
      (purged) => purged > 0 && logger.info({ purged }, `${what} purged`),
      (error: unknown) => logger.warn({ err: error }, `purging ${what} failed; will retry`),
    );
  };
  setTimeout(run, Math.min(intervalMs, 60_000)).unref();
  setInterval(run, intervalMs).unref();
}
