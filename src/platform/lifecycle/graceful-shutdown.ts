import type { Server } from 'node:http';
import { createHttpTerminator } from 'http-terminator';
import type { Knex } from 'knex';
import type { Logger } from '../logger';
import type { Readiness } from './readiness';

export interface ShutdownParts {
  server: Server;
  readiness: Readiness;
  db: Knex;
  logger: Logger;
  /** Longest wait for in-flight requests before their sockets are closed. */
  timeoutMs: number;
  /** Closed alongside the API server, e.g. the metrics server. */
  alsoClose?: Server[];
}

/**
 * Stops a worker on SIGTERM or SIGINT: readiness fails at once, the server
 * stops accepting, in-flight requests finish (their connections are told
 * `Connection: close`), idle keep-alive sockets close, then the pool, then the
 * process exits 0. If something still hangs past the timeout, exit 1.
 */
export function stopGracefullyOnSignals(parts: ShutdownParts): void {
  const terminator = createHttpTerminator({ server: parts.server, gracefulTerminationTimeout: parts.timeoutMs });
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    parts.readiness.startShutdown();
    parts.logger.info({ signal, timeoutMs: parts.timeoutMs }, 'shutting down');
    const deadline = setTimeout(() => {
      parts.logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, parts.timeoutMs + 5000);
    deadline.unref();
    const closeOthers = (parts.alsoClose ?? []).map(
      (server) => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    Promise.all([terminator.terminate(), ...closeOthers])
      .then(() => parts.db.destroy())
      .then(() => {
        parts.logger.info('shut down');
        process.exit(0);
      })
      .catch((error: unknown) => {
        parts.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
