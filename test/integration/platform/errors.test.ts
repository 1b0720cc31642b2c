import request from 'supertest';
import { ERROR_CATALOG } from '../../../src/platform/errors/error-catalog';
import { createCustomer } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { parsedLogs, startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const ERROR_MESSAGE_KEYS = ['code', 'errors', 'fieldName', 'link', 'message', 'messageKey', 'requestId', 'status'];

function expectErrorMessage(response: request.Response, status: number, code: number): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toMatchObject({ status, code, message: expect.any(String), requestId: expect.any(String) });
  expect(response.body.link).toBe(`/docs/errors#${response.body.messageKey}`);
  for (const key of Object.keys(response.body)) expect(ERROR_MESSAGE_KEYS).toContain(key);
  expect(response.headers['x-request-id']).toBe(response.body.requestId);
}

describe('ErrorMessage on every failure', () => {
  it('answers an unknown route with a 404 ErrorMessage', async () => {
    expectErrorMessage(await request(testApp.app).get('/nowhere'), 404, 2005);
    expectErrorMessage(await request(testApp.app).get('/v1/nowhere').set(testApp.as('loc')), 404, 2005);
    expectErrorMessage(await request(testApp.app).get('/v1/customers/a/b/c/d/e').set(testApp.as('loc')), 404, 2005);
  });

  it.each([
    ['put', '/v1/customers', 'GET, HEAD, POST'],
    ['put', '/v1/customers/0191b3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b', 'DELETE, GET, HEAD, PATCH'],
    // 'defaults' also reads as a card id: the card's PATCH and DELETE answer there too.
    ['put', '/v1/customers/x/payment-methods/defaults', 'DELETE, PATCH, POST'],
    ['get', '/v1/payment-intents/x/cancel', 'POST'],
    ['delete', '/health/live', 'GET, HEAD'],
    ['post', '/openapi.json', 'GET, HEAD'],
  ] as const)('answers %s %s, a path that takes other methods, with 405 and Allow: %s', async (method, path, allow) => {
    const response = await request(testApp.app)[method](path).set(testApp.as(newLocation()));
    expectErrorMessage(response, 405, 1008);
    expect(response.headers.allow).toBe(allow);
  });

  it('answers malformed JSON with 400 MALFORMED_JSON and no parser detail', async () => {
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .set('Content-Type', 'application/json')
      .send('{"externalReferenceId": ');
    expectErrorMessage(response, 400, 1001);
    expect(response.body.message).not.toMatch(/Unexpected|position|SyntaxError/);
  });

  it('answers a body over 100 kB with 413', async () => {
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ description: 'x'.repeat(101 * 1024) }));
    expectErrorMessage(response, 413, 1005);
  });

  it('answers a compressed body with 415 rather than inflating it', async () => {
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send('{}');
    expectErrorMessage(response, 415, 1006);
  });

  it('sets JSON and hardening headers on answers', async () => {
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(newLocation())).send({}).expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });
});

describe('request ids', () => {
  it('keeps a well-formed incoming X-Request-Id and echoes it in the header and the ErrorMessage', async () => {
    const response = await request(testApp.app).get('/v1/customers/nope').set(testApp.as('loc')).set('X-Request-Id', 'checkout.A-1_2');
    expect(response.headers['x-request-id']).toBe('checkout.A-1_2');
    expect(response.body.requestId).toBe('checkout.A-1_2');
  });

  it.each([['has spaces'], ['x'.repeat(129)], ['<script>']])('replaces the unsafe request id %j with a UUID', async (incoming) => {
    const response = await request(testApp.app).get('/nowhere').set('X-Request-Id', incoming);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.requestId).toBe(response.headers['x-request-id']);
  });

  it('puts the request id on every log line of the request, with the route template rather than the path', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    await request(testApp.app).get(`/v1/customers/${customer.id}`).set(testApp.as(location)).set('X-Request-Id', 'trace-me').expect(200);

    const lines = parsedLogs(testApp.logLines).filter((line) => line.requestId === 'trace-me');
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request completed', method: 'GET', route: '/v1/customers/:id', status: 200, locationId: location }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(customer.id);
  });
});

describe('faults', () => {
  let broken: TestApp;
  beforeAll(async () => {
    broken = await startTestApp();
    // A schema the code does not expect: every query on it fails inside PostgreSQL.
    await broken.db.knex.raw('drop table default_payment_methods');
  });
  afterAll(() => broken.close());

  it('answers 500 with nothing of the cause, and logs the cause', async () => {
    const location = newLocation();
    const customer = await createCustomer(broken, location);
    const response = await request(broken.app)
      .get(`/v1/customers/${customer.id}/payment-methods/defaults/web`)
      .set(broken.as(location))
      .set('X-Request-Id', 'fault-1');

    expectErrorMessage(response, 500, 5000);
    expect(response.body.message).toBe(ERROR_CATALOG.INTERNAL_ERROR.message);
    expect(JSON.stringify(response.body)).not.toMatch(/default_payment_methods|relation|select|at \w+ \(|\.ts:/i);

    const logged = parsedLogs(broken.logLines).find((line) => line.requestId === 'fault-1' && line.level === 'error');
    expect(JSON.stringify(logged)).toContain('default_payment_methods');
  });
});

describe('the link of an ErrorMessage', () => {
  it('points to its entry on the served error page, nested errors too', async () => {
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .send({ externalReferenceId: 7, description: 8 })
      .expect(400);
    expect(response.body.link).toBe('/docs/errors#VALIDATION_FAILED');
    for (const nested of response.body.errors) expect(nested.link).toBe('/docs/errors#VALIDATION_FAILED');

    const page = await request(testApp.app).get('/docs/errors').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    for (const [key, entry] of Object.entries(ERROR_CATALOG)) {
      expect(page.text).toContain(`<tr id="${key}"><td><a href="#${key}">${entry.code}</a></td><td>${entry.status}</td>`);
    }
  });
});
