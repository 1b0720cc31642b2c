import { Router } from 'express';
import type { Knex } from 'knex';
import { databaseProbe } from '../db/database-probe';
import { DomainError } from '../errors/domain-error';
import type { Readiness } from '../lifecycle/readiness';
import { SERVICE_VERSION } from '../service-version';

export const LIVENESS_PATH = '/health/live';
export const READINESS_PATH = '/health/ready';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Probes for an orchestrator or load balancer, without a token or a location:
 * liveness never touches the database (a database outage must not restart
 * every replica); readiness does, briefly, as of the probe (no cached answer:
 * on a connection of its own, database-probe.ts), and fails while shutting down.
 */
export function healthRouter(db: Knex, readiness: Readiness, databaseTimeoutMs: number): Router {
  const router = Router();
  const probe = databaseProbe(db);
  router.get(LIVENESS_PATH, (_request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    response.status(200).json({ status: 'UP', version: SERVICE_VERSION });
  });
  router.get(READINESS_PATH, async (_request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    if (readiness.shuttingDown) {
      throw new DomainError('SERVICE_UNAVAILABLE', { message: 'The service is shutting down.' });
    }
    try {
      await withTimeout(probe(databaseTimeoutMs), databaseTimeoutMs);
    } catch {
      throw new DomainError('SERVICE_UNAVAILABLE', {
        message: 'The database is not reachable.',
        headers: { 'Retry-After': '5' },
      });
    }
    const problem = await readiness.problem();
    if (problem !== undefined) throw new DomainError('SERVICE_UNAVAILABLE', { message: problem, headers: { 'Retry-After': '5' } });
    response.status(200).json({ status: 'UP', database: 'UP', version: SERVICE_VERSION });
  });
  return router;
}
