import request from 'supertest';
import { newLocation } from '../factories/locations';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 17, item 5: a card number used as a JSON key came back in
 * `fieldName`, and a card number, a session secret or a bearer token sent as
 * X-Request-Id was echoed in the answer and written to every log line.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const PAN = '4111111111111111';
const SESSION_SECRET = 'PI_0b7e6c1a-6a44-4c52-9d9e-1f0e2b3c4d5e_SECRET_abcdefghijklmnopqrstuvwx';

function everywhere(response: request.Response): string {
  return [JSON.stringify(response.headers), JSON.stringify(response.body), ...testApp.logLines].join('\n');
}

describe('a card number as a JSON key', () => {
  it.each([
    ['at the top level', { [PAN]: 1 }, ''],
    ['inside an object', { card: { [`x${PAN}`]: 1 } }, 'card.'],
    ['grouped with spaces', { ['4111 1111 1111 1111']: 'a' }, ''],
  ])('%s is refused naming the field without its digits', async (_where, body, prefix) => {
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(newLocation())).send(body).expect(400);
    expect(response.body).toMatchObject({ messageKey: 'CARD_NUMBER_REJECTED' });
    expect(response.body.fieldName.startsWith(prefix)).toBe(true);
    expect(response.body.fieldName).not.toMatch(/\d{4}/);
    expect(everywhere(response)).not.toMatch(/4111[ -]?1111/);
  });
});

describe('X-Request-Id', () => {
  it('is kept when it is an ordinary id', async () => {
    const response = await request(testApp.app).get('/health/live').set('X-Request-Id', 'req-2026-11-23.abc_1');
    expect(response.headers['x-request-id']).toBe('req-2026-11-23.abc_1');
  });

  it.each([
    ['a card number', PAN],
    ['a card number inside an id', `order-${PAN}-retry`],
    ['a session secret', SESSION_SECRET],
    ['a JSON Web Token', 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl'],
  ])('holding %s is replaced by a generated id, never echoed or logged', async (_what, value) => {
    const location = newLocation();
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .set('X-Request-Id', value)
      .send({ description: 42 })
      .expect(400);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.requestId).toBe(response.headers['x-request-id']);
    expect(everywhere(response)).not.toContain(value);
  });

  it('holding the request’s own bearer token is replaced', async () => {
    const token = String(testApp.adminAuthorization.Authorization).slice('Bearer '.length);
    const response = await request(testApp.app).get('/v1/customers').set(testApp.as(newLocation())).set('X-Request-Id', token.slice(0, 128));
    expect(response.headers['x-request-id']).not.toBe(token.slice(0, 128));
    expect(everywhere(response)).not.toContain(token.slice(0, 128));
  });
});
