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

describe('the route label of error answers (access log and metrics)', () => {
  const routeOf = (requestId: string) => parsedLogs(t.logLines).find((line) => line.msg === 'request completed' && line.requestId === requestId)?.route;

  it.each([
    [
      '401 without a token',
      (location: string) => request(t.app).get(`/v1/customers/${crypto.randomUUID()}`).set('Platform-Restaurant-External-ID', location),
      401,
    ],
    ['400 without a location', () => request(t.app).get(`/v1/customers/${crypto.randomUUID()}`).set(t.adminAuthorization), 400],
    ['400 for a malformed id', (location: string) => request(t.app).get('/v1/customers/not-a-uuid').set(t.as(location)), 400],
    ['404 for an unknown customer', (location: string) => request(t.app).get(`/v1/customers/${crypto.randomUUID()}`).set(t.as(location)), 404],
    ['405 for a method the route does not take', (location: string) => request(t.app).put(`/v1/customers/${crypto.randomUUID()}`).set(t.as(location)), 405],
  ])('carries the route template on a %s', async (_case, send, status) => {
    const response = await send(newLocation()).expect(status);
    expect(routeOf(response.headers['x-request-id'] as string)).toBe('/v1/customers/:id');
  });

  it('tells apart two routes of one path by method, and leaves an unknown path unmatched', async () => {
    const location = newLocation();
    const customer = crypto.randomUUID();
    // POST …/payment-methods/defaults has the shape of DELETE …/payment-methods/{paymentMethodId} too.
    const setDefault = await request(t.app)
      .post(`/v1/customers/${customer}/payment-methods/defaults`)
      .set('Platform-Restaurant-External-ID', location)
      .expect(401);
    expect(routeOf(setDefault.headers['x-request-id'] as string)).toBe('/v1/customers/:id/payment-methods/defaults');
    const deleteCard = await request(t.app)
      .delete(`/v1/customers/${customer}/payment-methods/defaults`)
      .set('Platform-Restaurant-External-ID', location)
      .expect(401);
    expect(routeOf(deleteCard.headers['x-request-id'] as string)).toBe('/v1/customers/:id/payment-methods/:paymentMethodId');
    const unknown = await request(t.app).get('/v1/nothing-here').set(t.as(location)).expect(404);
    expect(routeOf(unknown.headers['x-request-id'] as string)).toBe('(unmatched)');
  });
});
