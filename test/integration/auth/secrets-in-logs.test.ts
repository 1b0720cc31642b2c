import request from 'supertest';
import { LOGIN_PATH } from '../../../src/auth/login.router';
import { createLogger } from '../../../src/platform/logger';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { startTestApp, TEST_CLIENT, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

it('a full run of requests leaves no bearer token, client secret or session secret in the log', async () => {
  const location = newLocation();
  const json = await request(testApp.app).post(LOGIN_PATH).send(TEST_CLIENT).expect(200);
  const jsonToken: string = json.body.token.accessToken;
  const form = await request(testApp.app)
    .post(LOGIN_PATH)
    .type('form')
    .auth(TEST_CLIENT.clientId, TEST_CLIENT.clientSecret)
    .send({ grant_type: 'client_credentials' })
    .expect(200);
  const formToken: string = form.body.access_token;

  // Failures too: wrong secret, malformed login JSON carrying the secret, a tampered token.
  await request(testApp.app).post(LOGIN_PATH).send({ clientId: TEST_CLIENT.clientId, clientSecret: 'guess-41c9' }).expect(401);
  await request(testApp.app)
    .post(LOGIN_PATH)
    .set('Content-Type', 'application/json')
    .send(`{"clientId":"${TEST_CLIENT.clientId}","clientSecret":"${TEST_CLIENT.clientSecret}"`)
    .expect(400);
  await request(testApp.app).get('/v1/customers?externalReferenceId=x').set('Authorization', `Bearer ${jsonToken}x`).set(LOCATION_HEADER, location).expect(401);

  const created = await request(testApp.app)
    .post('/v1/customers')
    .set('Authorization', `Bearer ${jsonToken}`)
    .set(LOCATION_HEADER, location)
    .send({})
    .expect(200);
  const intent = await request(testApp.app)
    .post('/v1/payment-intents')
    .set('Authorization', `Bearer ${formToken}`)
    .set(LOCATION_HEADER, location)
    .send({ amount: 1250, currency: 'USD', externalReferenceId: 'order-1', customerId: created.body.id })
    .expect(201);
  const sessionSecret: string = intent.body.sessionSecret;
  const browserToken = await testApp.tokenFor({ scopes: ['simplified-payments-integration:read'], locations: ['*'] });
  for (const [secret, status] of [
    [sessionSecret, 200],
    [`${sessionSecret}x`, 401],
  ] as const) {
    await request(testApp.app)
      .get(`/v1/customers/${created.body.id}/payment-methods`)
      .set('Authorization', `Bearer ${browserToken}`)
      .set(LOCATION_HEADER, location)
      .set('Platform-Session-Secret', secret)
      .expect(status);
  }

  // A setup intent's SI_ secret, used by the browser to read and confirm it.
  const setup = await request(testApp.app)
    .post('/v1/setup-intents')
    .set('Authorization', `Bearer ${jsonToken}`)
    .set(LOCATION_HEADER, location)
    .send({ customerId: created.body.id })
    .expect(201);
  const setupSecret: string = setup.body.sessionSecret;
  await request(testApp.app)
    .post(`/v1/setup-intents/${setup.body.id}/confirm`)
    .set('Authorization', `Bearer ${browserToken}`)
    .set(LOCATION_HEADER, location)
    .set('Platform-Session-Secret', setupSecret)
    .send({ type: 'CARD', card: { type: 'VISA', lastFour: '4242', expiry: { month: '03', year: '2031' } } })
    .expect(200);

  // A webhook endpoint's secret, when made, rotated, and (by mistake) logged as the record it is stored in.
  const endpoint = await request(testApp.app)
    .post('/v1/webhook-endpoints')
    .set('Authorization', `Bearer ${jsonToken}`)
    .set(LOCATION_HEADER, location)
    .send({ url: 'https://hooks.example.com/in', enabledEvents: ['*'] })
    .expect(201);
  const rotated = await request(testApp.app)
    .post(`/v1/webhook-endpoints/${endpoint.body.id}/rotate-secret`)
    .set('Authorization', `Bearer ${jsonToken}`)
    .set(LOCATION_HEADER, location)
    .expect(200);
  const webhookSecrets = [endpoint.body.secret as string, rotated.body.secret as string].map((secret) => secret.slice('whsec_'.length));
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => testApp.logLines.push(line) } });
  logger.warn(
    {
      endpoint: { id: endpoint.body.id, secret: rotated.body.secret, previousSecret: endpoint.body.secret },
      headers: { 'webhook-signature': 'v1,c2lnbmF0dXJl' },
    },
    'logged by mistake',
  );

  const log = testApp.logLines.join('');
  expect(testApp.logLines.length).toBeGreaterThanOrEqual(7);
  for (const secret of [
    jsonToken,
    formToken,
    browserToken,
    jsonToken.split('.')[2],
    TEST_CLIENT.clientSecret,
    'guess-41c9',
    sessionSecret.split('_SECRET_')[1],
    setupSecret.split('_SECRET_')[1],
    ...webhookSecrets,
    'c2lnbmF0dXJl',
  ]) {
    expect(log).not.toContain(secret);
  }
});
