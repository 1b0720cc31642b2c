import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export const METRICS_PATH = '/metrics';

/**
 * GET /metrics on its own port, never the API's: the API port faces the load
 * balancer and the internet, the metrics port only the scraper's network.
 * `collect` lets the cluster's primary answer for all its workers.
 */
export function createMetricsServer(collect: () => Promise<{ contentType: string; body: string }>): Server {
  return createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== METRICS_PATH) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    collect().then(
      ({ contentType, body }) => response.writeHead(200, { 'Content-Type': contentType }).end(body),
      () => response.writeHead(500, { 'Content-Type': 'text/plain' }).end('Metrics could not be collected\n'),
    );
  });
}

/** What a single process's registry answers. */
export function registryCollector(registry: Registry): () => Promise<{ contentType: string; body: string }> {
  return async () => ({ contentType: registry.contentType, body: await registry.metrics() });
}
