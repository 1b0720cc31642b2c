import request from 'supertest';
import { createMetricsServer, registryCollector } from '../../../src/platform/metrics/metrics.server';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ withMetrics: true });
});
afterAll(() => t.close());

describe('GET /metrics (on the metrics port)', () => {
  it('reports request durations by method, route template and status, the pool, and process defaults', async () => {
    const location = newLocation();
    const created = await request(t.app).post('/v1/customers').set(t.as(location)).send({}).expect(200);
    await request(t.app).get(`/v1/customers/${created.body.id}`).set(t.as(location)).expect(200);

    const server = createMetricsServer(registryCollector(t.metrics!.registry));
    const response = await request(server).get('/metrics').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const text = response.text;
    expect(text).toContain('http_request_duration_seconds_count{method="POST",route="/v1/customers",status="200"} 1');
    // The template, never the raw path with its id.
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v1/customers/:id",status="200"} 1');
    expect(text).not.toContain(created.body.id);
    expect(text).toMatch(/^db_pool_connections_in_use \d+$/m);
    expect(text).toMatch(/^db_pool_connections_idle \d+$/m);
    expect(text).toMatch(/^db_pool_acquires_waiting \d+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('answers nothing but /metrics', async () => {
    const server = createMetricsServer(registryCollector(t.metrics!.registry));
    await request(server).get('/v1/customers').expect(404);
    await request(server).post('/metrics').expect(404);
  });
});
