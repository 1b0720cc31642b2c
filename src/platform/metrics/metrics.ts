import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { poolCounts, type PoolCounts } from '../db/pool-pressure';
import { routeTemplateOf } from '../http/route-template';

export interface Metrics {
  registry: Registry;
  /** Times each request by method, route template and status. */
  recordRequests: RequestHandler;
}

/**
 * The service's Prometheus metrics: request durations, the database pool, and
 * prom-client's process defaults (CPU, memory, event-loop lag, GC).
 */
export function createMetrics(db: Knex, registry: Registry = new Registry()): Metrics {
  collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const poolGauge = (name: string, help: string, read: (counts: PoolCounts) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const counts = poolCounts(db);
        this.set(counts === undefined ? 0 : read(counts));
      },
    });
  poolGauge('db_pool_connections_in_use', 'Database connections lent to a query right now.', (counts) => counts.used);
  poolGauge('db_pool_connections_idle', 'Open database connections waiting in the pool.', (counts) => counts.free);
  poolGauge('db_pool_acquires_waiting', 'Requests waiting for a database connection.', (counts) => counts.pending);

  const recordRequests: RequestHandler = (request, response, next) => {
    const stop = requestDuration.startTimer();
    response.on('finish', () => {
      stop({ method: request.method, route: routeTemplateOf(request), status: String(response.statusCode) });
    });
    next();
  };
  return { registry, recordRequests };
}
