import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { abandonAllWork } from '../db/abandoned-work';
import type { Logger } from '../logger';
import type { Readiness } from './readiness';

export interface ShutdownParts {
  server: Server;
  readiness: Readiness;
  db: Knex;
  logger: Logger;
  /** How long the listener keeps serving after the signal, with readiness failing, before it closes. */
  drainMs: number;
  /** Longest wait, once the listener is closed, for in-flight requests before their sockets are closed. */
  timeoutMs: number;
  /** Closed alongside the API server, e.g. the metrics server. */
  alsoClose?: Server[];
  /**
   * Work beside the API (webhook delivery): told to stop when the signal comes,
   * so it takes nothing new, and awaited (its work in flight) before the pool closes.
   */
  background?: Array<{ stop(): Promise<void> }>;
}

/** True once `work` settles, false if `ms` pass first. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  const done = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once every connection of a closed server has ended, or after `timeoutMs` with false. */
function connectionsEnded(server: Server, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Stops a worker on SIGTERM or SIGINT in the order a rolling deploy needs, so
 * that no request a client sent goes unanswered:
 *
 * 1. readiness answers 503 at once, and every answer from now on carries
 *    `Connection: close` (the load balancer stops routing here, and clients
 *    on kept-alive connections move to another replica after their answer);
 * 2. the listener keeps accepting and serving for `drainMs`, so requests the
 *    balancer sent before it noticed are answered rather than reset;
 * 3. the listener closes, idle connections close, in-flight requests finish
 *    (up to `timeoutMs`, then their sockets are closed), background work
 *    stops and the pool closes within what is left of `timeoutMs` (then the
 *    database work still under way is canceled and its connections closed:
 *    nobody waits for it, and a slow database must not hold the exit), and
 *    the process exits 0 (1 only if something hangs past every bound).
 *
 * Node's own server.close() (which since Node 19 also ends idle kept-alive
 * connections) does the closing: a library that accepts new sockets during
 * its drain only to destroy them (http-terminator) resets exactly the
 * requests this is for.
 */
export function stopGracefullyOnSignals(parts: ShutdownParts): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    parts.readiness.startShutdown();
    parts.logger.info({ signal, drainMs: parts.drainMs, timeoutMs: parts.timeoutMs }, 'shutting down: draining');
    setTimeout(
      () => {
        parts.logger.error('shutdown did not finish in time; exiting');
        process.exit(1);
      },
      parts.drainMs + parts.timeoutMs + 5000,
    ).unref();
    const backgroundStopped = Promise.allSettled((parts.background ?? []).map((work) => work.stop()));

    await sleep(parts.drainMs);
    parts.logger.info('closing the listener');
    const timeUp = Date.now() + parts.timeoutMs;
    const ended = connectionsEnded(parts.server, parts.timeoutMs);
    parts.server.closeIdleConnections();
    for (const other of parts.alsoClose ?? []) other.close();
    if (!(await ended)) {
      parts.logger.warn('requests still in flight at the shutdown timeout; closing their connections');
      parts.server.closeAllConnections();
    }
    const closed = Promise.allSettled([backgroundStopped]).then(() => parts.db.destroy());
    if (!(await within(closed, timeUp - Date.now()))) {
      parts.logger.warn({ connections: abandonAllWork() }, 'database work still under way at the shutdown timeout; canceled');
      await closed;
    }
    parts.logger.info('shut down');
    process.exit(0);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    stop(signal).catch((error: unknown) => {
      parts.logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
