import request from 'supertest';
import { newLocation } from '../../factories/locations';
import { parsedLogs, startTestApp, type TestApp } from '../../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the request log', () => {
  it('writes one JSON line per request: request id, location, client id, route template, status and duration', async () => {
    const location = newLocation();
    const created = await request(t.app).post('/v1/customers').set(t.as(location)).send({}).expect(200);
    t.logLines.length = 0;
    const read = await request(t.app).get(`/v1/customers/${created.body.id}`).set(t.as(location)).expect(200);

    const lines = parsedLogs(t.logLines).filter((line) => line.msg === 'request completed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      requestId: read.headers['x-request-id'],
      locationId: location,
      clientId: 'test-client',
      method: 'GET',
      route: '/v1/customers/:id',
      status: 200,
    });
    expect(typeof lines[0]?.durationMs).toBe('number');
    // The template, not the path: the id is not in the line.
    expect(t.logLines.join('\n')).not.toContain(created.body.id);
  });
});
