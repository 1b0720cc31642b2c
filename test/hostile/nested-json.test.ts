import request from 'supertest';
import { LOGIN_PATH } from '../../src/auth/login.router';
import { creatingOperations } from '../factories/creating-operations';
import { newLocation } from '../factories/locations';
import { startTestApp, TEST_CLIENT, type TestApp } from '../support/test-app';

/**
 * Issue 17, item 2: a body of deeply nested arrays overflowed the stack of the
 * recursive card-number scan and of the idempotency fingerprint (500), and a
 * hundred of them held the process up. Nesting past the limit is refused by
 * the JSON reader, before any recursive walk, on every route that reads a body.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const nestedArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

function expectTooDeep(body: Record<string, unknown>): void {
  expect(body).toMatchObject({ status: 400, code: 1012, messageKey: 'JSON_TOO_DEEP' });
}

describe('deeply nested JSON', () => {
  it('is refused 400 on the token endpoint, with no token at all', async () => {
    const response = await request(testApp.app)
      .post(LOGIN_PATH)
      .set('Content-Type', 'application/json')
      .send(`{"clientId":"x","clientSecret":"y","n":${nestedArrays(6858)}}`)
      .expect(400);
    expectTooDeep(response.body);
  });

  it.each(creatingOperations(() => testApp).map((operation) => [operation.template, operation] as const))(
    'is refused 400 on POST %s, with an Idempotency-Key, and nothing is stored',
    async (_template, operation) => {
      const location = newLocation();
      const { path } = await operation.prepare(location);
      const before = await testApp.db.knex(operation.table).count<{ count: string }[]>('* as count');
      const response = await request(testApp.app)
        .post(path)
        .set(testApp.as(location))
        .set('Idempotency-Key', `deep-${location}`)
        .set('Content-Type', 'application/json')
        .send(`{"x":${nestedArrays(3165)}}`)
        .expect(400);
      expectTooDeep(response.body);
      expect(await testApp.db.knex(operation.table).count('* as count')).toEqual(before);
      expect(await testApp.db.knex('idempotency_keys').where({ location_id: location })).toEqual([]);
    },
  );

  it('allows 32 levels and refuses 33, objects and arrays alike, and strings do not count', async () => {
    const location = newLocation();
    const post = (body: string) => request(testApp.app).post('/v1/customers').set(testApp.as(location)).set('Content-Type', 'application/json').send(body);
    // Depth 32 reaches the schema, which refuses the unknown shape or ignores it; never JSON_TOO_DEEP.
    const at32 = await post(`{"description":"x","n":${nestedObjects(31)}}`);
    expect(at32.body.messageKey).not.toBe('JSON_TOO_DEEP');
    expectTooDeep((await post(`{"description":"x","n":${nestedObjects(32)}}`).expect(400)).body);
    expectTooDeep((await post(`{"n":${nestedArrays(32)}}`).expect(400)).body);
    // Brackets inside strings are text, not nesting (escaped quotes included).
    await post(JSON.stringify({ description: `say \\" ${'['.repeat(200)}` })).expect(200);
  });

  it('leaves the process answering: a hundred bombs, then a normal request', async () => {
    const bombs = Array.from({ length: 100 }, () => request(testApp.app).post(LOGIN_PATH).set('Content-Type', 'application/json').send(nestedArrays(6000)));
    for (const response of await Promise.all(bombs)) expect(response.status).toBe(400);
    await request(testApp.app).post(LOGIN_PATH).send({ clientId: TEST_CLIENT.clientId, clientSecret: TEST_CLIENT.clientSecret }).expect(200);
  });
});
