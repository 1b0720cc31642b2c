import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../support/process/free-port';
import { freshPostgresDatabase, type FreshDatabase } from '../../support/process/fresh-postgres-database';
import { startSourceService, type RunningService } from '../../support/process/service-process';

function count(lines: string[], message: string): number {
  return lines.filter((line) => line.includes(`"msg":"${message}"`)).length;
}

let database: FreshDatabase;
let service: RunningService;
let metricsPort: number;

beforeAll(async () => {
  database = await freshPostgresDatabase();
  metricsPort = await freePort();
  service = await startSourceService({ DATABASE_URL: database.url, WEB_CONCURRENCY: '2', METRICS_PORT: String(metricsPort) });
  // The first worker's "listening" started the test; wait for the second's.
  for (let waited = 0; count(service.logLines, 'listening') < 2 && waited < 30_000; waited += 100) await sleep(100);
}, 90_000);

afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

describe('WEB_CONCURRENCY=2', () => {
  it('runs two workers on one port, aggregates their metrics on the metrics port, and stops them all on SIGTERM', async () => {
    expect(count(service.logLines, 'listening')).toBe(2);
    for (let index = 0; index < 20; index += 1) {
      const response = await fetch(`${service.baseUrl}/health/ready`);
      expect(response.status).toBe(200);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/health\/ready",status="200"\} 20/);

    service.signal('SIGTERM');
    await expect(service.exited).resolves.toBe(0);
    expect(count(service.logLines, 'shut down')).toBe(2);
    expect(count(service.logLines, 'all workers stopped')).toBe(1);
  }, 60_000);
});
