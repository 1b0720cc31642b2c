import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import request from 'supertest';
import { LOGIN_PATH } from '../../../src/auth/login.router';
import { SCOPES } from '../../../src/auth/scopes';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { parsedLogs, startTestApp, TEST_AUDIENCE, TEST_CLIENT, TEST_ISSUER, testSecretHash, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({
    clients: [
      { clientId: TEST_CLIENT.clientId, secretHash: await testSecretHash(TEST_CLIENT.clientSecret), scopes: [...SCOPES], locations: ['*'] },
      { clientId: 'reader', secretHash: await testSecretHash('reader-secret'), scopes: ['spi.customers:read'], locations: ['loc-r'] },
      { clientId: 'locked', secretHash: await testSecretHash('locked-secret'), scopes: ['spi.customers:read'], locations: ['*'] },
      { clientId: 'locked-form', secretHash: await testSecretHash('locked-secret'), scopes: ['spi.customers:read'], locations: ['*'] },
    ],
  });
});
afterAll(() => testApp.close());

function jsonLogin(body: object) {
  return request(testApp.app).post(LOGIN_PATH).send(body);
}

function formLogin(form: Record<string, string>, basic?: [string, string]) {
  const call = request(testApp.app).post(LOGIN_PATH).type('form').send(form);
  return basic === undefined ? call : call.auth(basic[0], basic[1]);
}

describe('JSON login (the spec token call)', () => {
  it('answers 200 with the token envelope, uncached, whose token works on /v1', async () => {
    const response = await jsonLogin({ ...TEST_CLIENT, userAccessType: 'TOAST_MACHINE_CLIENT' }).expect(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({
      token: { tokenType: 'Bearer', scope: SCOPES.join(' '), expiresIn: 600, accessToken: expect.any(String), idToken: null, refreshToken: null },
      status: 'SUCCESS',
    });
    await request(testApp.app)
      .post('/v1/customers')
      .set('Authorization', `Bearer ${response.body.token.accessToken}`)
      .set(LOCATION_HEADER, newLocation())
      .send({})
      .expect(200);
  });

  it('issues an RFC 9068 token: typ at+jwt, iss, aud, sub, client_id, iat, exp, jti, scope, locations', async () => {
    const { body } = await jsonLogin({ clientId: 'reader', clientSecret: 'reader-secret' }).expect(200);
    const token: string = body.token.accessToken;
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: testApp.keys.kid, typ: 'at+jwt' });

    // Verifiable by anyone holding the published JWKS.
    const jwks = await request(testApp.app).get('/.well-known/jwks.json').expect(200);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.body), { issuer: TEST_ISSUER, audience: TEST_AUDIENCE });
    expect(payload).toEqual({
      iss: TEST_ISSUER,
      aud: TEST_AUDIENCE,
      sub: 'reader',
      client_id: 'reader',
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.any(String),
      scope: 'spi.customers:read',
      locations: ['loc-r'],
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(600);
  });

  it('narrows the token to the requested scopes and refuses a scope the client lacks', async () => {
    const narrowed = await jsonLogin({ ...TEST_CLIENT, scope: 'spi.customers:read  spi.customers:write' }).expect(200);
    expect(narrowed.body.token.scope).toBe('spi.customers:read spi.customers:write');
    const refused = await jsonLogin({ clientId: 'reader', clientSecret: 'reader-secret', scope: 'spi.customers:write' }).expect(400);
    expect(refused.body).toMatchObject({ status: 400, fieldName: 'scope' });
  });

  it.each([
    ['an unknown client', { clientId: 'nobody', clientSecret: 'guess-7f3a9' }],
    ['a wrong secret', { clientId: TEST_CLIENT.clientId, clientSecret: 'guess-8e2b1' }],
  ])('answers 401 ErrorMessage for %s, without echoing the secret', async (_case, body) => {
    const response = await jsonLogin(body).expect(401);
    expect(response.body).toMatchObject({ status: 401, code: 4003, messageKey: 'INVALID_CLIENT_CREDENTIALS' });
    expect(JSON.stringify(response.body)).not.toContain(body.clientSecret);
  });

  it.each([
    ['clientSecret', { clientId: 'a' }],
    ['clientId', { clientSecret: 'a' }],
    ['userAccessType', { ...TEST_CLIENT, userAccessType: 'TOAST_USER' }],
  ])('answers 400 naming %s when it is missing or wrong', async (fieldName, body) => {
    const response = await jsonLogin(body).expect(400);
    expect(response.body.fieldName).toBe(fieldName);
  });

  it('slows down repeated failures for one client id: 429 with Retry-After, even with the right secret', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await jsonLogin({ clientId: 'locked', clientSecret: `guess-${attempt}` }).expect(401);
    }
    const throttled = await jsonLogin({ clientId: 'locked', clientSecret: 'locked-secret' }).expect(429);
    expect(throttled.body).toMatchObject({ status: 429, code: 4291, messageKey: 'TOO_MANY_LOGIN_ATTEMPTS' });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // Other clients are unaffected.
    await jsonLogin({ clientId: 'reader', clientSecret: 'reader-secret' }).expect(200);
  });
});

describe('RFC 6749 client-credentials grant (form-encoded)', () => {
  it('answers the RFC token response for credentials in the body', async () => {
    const response = await formLogin({ grant_type: 'client_credentials', client_id: 'reader', client_secret: 'reader-secret' }).expect(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600, scope: 'spi.customers:read' });
  });

  it('accepts HTTP Basic client authentication and a scope subset', async () => {
    const response = await formLogin({ grant_type: 'client_credentials', scope: 'spi.customers:write' }, [
      TEST_CLIENT.clientId,
      TEST_CLIENT.clientSecret,
    ]).expect(200);
    expect(response.body.scope).toBe('spi.customers:write');
  });

  it.each([
    ['wrong credentials', { grant_type: 'client_credentials', client_id: 'reader', client_secret: 'nope' }, 401, 'invalid_client'],
    ['no credentials', { grant_type: 'client_credentials' }, 401, 'invalid_client'],
    ['another grant', { grant_type: 'password', client_id: 'reader', client_secret: 'reader-secret' }, 400, 'unsupported_grant_type'],
    ['no grant_type', { client_id: 'reader', client_secret: 'reader-secret' }, 400, 'invalid_request'],
    [
      'a scope the client lacks',
      { grant_type: 'client_credentials', client_id: 'reader', client_secret: 'reader-secret', scope: 'spi.customers:write' },
      400,
      'invalid_scope',
    ],
  ])('answers %s with the RFC 6749 §5.2 error', async (_case, form, status, error) => {
    const response = await formLogin(form).expect(status);
    expect(response.body).toEqual({ error, error_description: expect.any(String) });
    if (status === 401) expect(response.headers['www-authenticate']).toMatch(/^Basic realm=/);
  });

  it('refuses credentials sent both in the Basic header and the body', async () => {
    const response = await formLogin({ grant_type: 'client_credentials', client_id: 'reader', client_secret: 'reader-secret' }, [
      'reader',
      'reader-secret',
    ]).expect(400);
    expect(response.body.error).toBe('invalid_request');
  });

  it('throttles failures per client id with 429 and Retry-After', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await formLogin({ grant_type: 'client_credentials', client_id: 'locked-form', client_secret: `guess-${attempt}` }).expect(401);
    }
    const throttled = await formLogin({ grant_type: 'client_credentials', client_id: 'locked-form', client_secret: 'locked-secret' }).expect(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('the log line of a refused login', () => {
  // Its own app: the failures above have spent most of this address's budget.
  let logged: TestApp;
  beforeAll(async () => {
    logged = await startTestApp({
      clients: [{ clientId: 'reader', secretHash: await testSecretHash('reader-secret'), scopes: ['spi.customers:read'], locations: ['*'] }],
    });
  });
  afterAll(() => logged.close());
  const accessLineOf = (requestId: string) => parsedLogs(logged.logLines).find((line) => line.msg === 'request completed' && line.requestId === requestId);
  const secretShaped = 'Qx7vJ2mP9rT4wY6zB1nC3dF5gH8kL0sA2eR4tU6iO8p';

  it.each([
    ['a configured client with a wrong secret', 'reader', 'reader'],
    ['an unknown id shaped like one', 'shop-backend-2', 'shop-backend-2'],
    ['a client secret pasted as the id', secretShaped, '(withheld: not shaped like a client id)'],
    ['an id with spaces and markup', '<b>admin</b> --', '(withheld: not shaped like a client id)'],
  ])('names the client id it tried, for %s, and never the secret', async (_case, clientId, shown) => {
    const response = await request(logged.app).post(LOGIN_PATH).send({ clientId, clientSecret: 'a-wrong-secret-for-the-log' }).expect(401);
    expect(accessLineOf(response.headers['x-request-id'] as string)).toMatchObject({ status: 401, clientId: shown, route: LOGIN_PATH });
    expect(logged.logLines.join('\n')).not.toContain('a-wrong-secret-for-the-log');
    if (shown !== clientId) expect(logged.logLines.join('\n')).not.toContain(clientId);
  });

  it('refuses a card number as the client id before any lookup (400, code 1004) and never logs it', async () => {
    const response = await request(logged.app).post(LOGIN_PATH).send({ clientId: '4111111111111111', clientSecret: 'x' }).expect(400);
    expect(response.body).toMatchObject({ code: 1004, messageKey: 'CARD_NUMBER_REJECTED' });
    expect(logged.logLines.join('\n')).not.toContain('4111111111111111');
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the public signing key by kid, without private material', async () => {
    const response = await request(testApp.app).get('/.well-known/jwks.json').expect(200);
    expect(response.body.keys).toHaveLength(1);
    expect(response.body.keys[0]).toMatchObject({ kid: testApp.keys.kid, kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(response.body.keys[0].d).toBeUndefined();
  });
});
