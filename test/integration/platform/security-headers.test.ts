import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { newLocation } from '../../factories/locations';
import { startTestApp, TEST_CLIENT, TEST_CORS_ORIGIN, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const LOGIN = '/authentication/v1/authentication/login';

/** A spread of answers: successes and failures, /v1 and the token endpoint. */
function answers(): Array<[string, () => request.Test]> {
  const location = newLocation();
  return [
    ['a /v1 200', () => request(testApp.app).post('/v1/customers').set(testApp.as(location)).send({})],
    ['a /v1 404', () => request(testApp.app).get(`/v1/customers/${randomUUID()}`).set(testApp.as(location))],
    ['a /v1 400', () => request(testApp.app).get('/v1/customers/nope').set(testApp.as(location))],
    ['a /v1 401', () => request(testApp.app).get(`/v1/customers/${randomUUID()}`)],
    ['a /v1 405', () => request(testApp.app).put('/v1/customers').set(testApp.as(location))],
    ['a token 200', () => request(testApp.app).post(LOGIN).send(TEST_CLIENT)],
    ['a token 401', () => request(testApp.app).post(LOGIN).send({ clientId: TEST_CLIENT.clientId, clientSecret: 'wrong' })],
    ['a token 400', () => request(testApp.app).post(LOGIN).send({ clientId: 7 })],
    [
      'an RFC 6749 token 200',
      () =>
        request(testApp.app)
          .post(LOGIN)
          .type('form')
          .send({ grant_type: 'client_credentials', ...{ client_id: TEST_CLIENT.clientId, client_secret: TEST_CLIENT.clientSecret } }),
    ],
  ];
}

describe('security headers', () => {
  it.each(answers())("%s carries Cache-Control: no-store and helmet's defaults, without X-Powered-By", async (_case, send) => {
    const response = await send();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });
});

describe('CORS only as configured', () => {
  const browserRead = () => `/v1/customers/${randomUUID()}/payment-methods`;

  it('answers a preflight from the configured origin for a browser-side read', async () => {
    const response = await request(testApp.app)
      .options(browserRead())
      .set('Origin', TEST_CORS_ORIGIN)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'platform-session-secret, platform-restaurant-external-id');
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(TEST_CORS_ORIGIN);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('grants nothing to another origin', async () => {
    const response = await request(testApp.app).options(browserRead()).set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'GET');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('grants nothing on server-side operations, even to the configured origin', async () => {
    const response = await request(testApp.app).options('/v1/customers').set('Origin', TEST_CORS_ORIGIN).set('Access-Control-Request-Method', 'POST');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});
