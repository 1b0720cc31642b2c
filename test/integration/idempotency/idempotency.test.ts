import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SCOPES } from '../../../src/auth/scopes';
import { purgeExpiredIdempotencyKeys } from '../../../src/idempotency/idempotency-keys.repository';
import { creatingOperations } from '../../factories/creating-operations';
import { cardInput } from '../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

async function countRows(table: string, location: string): Promise<number> {
  const [row] = await testApp.db.knex(table).where({ location_id: location }).count({ count: '*' });
  return Number(row?.count);
}

function post(location: string, path: string, key: string | undefined, body: object) {
  const call = request(testApp.app).post(path).set(testApp.as(location));
  return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body);
}

const CREATES = creatingOperations(() => testApp);

describe.each(CREATES)('Idempotency-Key on POST $template', ({ table, prepare, another }) => {
  it('replays the first answer to a retry with the same body, marked Idempotent-Replayed, and creates one record', async () => {
    const location = newLocation();
    const { path, body } = await prepare(location);
    const key = randomUUID();
    const first = await post(location, path, key, body);
    expect(first.status).toBeLessThan(300);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await post(location, path, key, body);
    expect(retry.status).toBe(first.status);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await countRows(table, location)).toBe(1);
  });

  it('answers 422 to the same key with a different body, and changes nothing', async () => {
    const location = newLocation();
    const { path, body } = await prepare(location);
    const key = randomUUID();
    await post(location, path, key, body).expect((response) => expect(response.status).toBeLessThan(300));
    const before = await countRows(table, location);
    const reused = await post(location, path, key, another(body)).expect(422);
    expect(reused.body).toMatchObject({ status: 422, code: 1007, messageKey: 'IDEMPOTENCY_KEY_REUSED', fieldName: 'Idempotency-Key' });
    expect(await countRows(table, location)).toBe(before);
  });
});

describe('Idempotency-Key rules', () => {
  it('the same body sent with its keys in another order is the same request', async () => {
    const location = newLocation();
    const key = randomUUID();
    const first = await post(location, '/v1/customers', key, { externalReferenceId: 'a', description: 'b' }).expect(200);
    const retry = await post(location, '/v1/customers', key, { description: 'b', externalReferenceId: 'a' }).expect(200);
    expect(retry.body.id).toBe(first.body.id);
  });

  it('answers 409 with Retry-After while the first attempt is still running, and replays once it is done', async () => {
    const location = newLocation();
    const key = randomUUID();
    const first = await post(location, '/v1/customers', key, {}).expect(200);
    // As if the first attempt had not finished: its claim is held, nothing stored yet.
    const row = testApp.db.knex('idempotency_keys').where({ location_id: location, key });
    const stored = await row.clone().first();
    await row.clone().update({ state: 'in_progress', response_status: null, response_body: null });
    const concurrent = await post(location, '/v1/customers', key, {}).expect(409);
    expect(concurrent.body).toMatchObject({ code: 3003, messageKey: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
    expect(concurrent.headers['retry-after']).toBe('1');
    await row.clone().update({ state: 'completed', response_status: stored.response_status, response_body: stored.response_body });
    expect((await post(location, '/v1/customers', key, {}).expect(200)).body.id).toBe(first.body.id);
    expect(await countRows('customers', location)).toBe(1);
  });

  it('lets a retry run when an attempt has held its claim past the lock timeout (its process died)', async () => {
    const location = newLocation();
    const key = randomUUID();
    await post(location, '/v1/customers', key, {}).expect(200);
    await testApp.db.knex('customers').where({ location_id: location }).delete();
    await testApp.db
      .knex('idempotency_keys')
      .where({ location_id: location, key })
      .update({ state: 'in_progress', response_status: null, response_body: null, locked_at: testApp.db.knex.raw("now() - interval '61 seconds'") });
    const retry = await post(location, '/v1/customers', key, {}).expect(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRows('customers', location)).toBe(1);
  });

  it('stores nothing for an attempt refused as invalid: a corrected retry with the key runs', async () => {
    const location = newLocation();
    const key = randomUUID();
    await post(location, '/v1/payment-intents', key, { amount: -1, currency: 'USD', externalReferenceId: 'o' }).expect(400);
    expect(await testApp.db.knex('idempotency_keys').where({ location_id: location })).toEqual([]);
    await post(location, '/v1/payment-intents', key, { amount: 100, currency: 'USD', externalReferenceId: 'o' }).expect(201);
    expect(await countRows('payment_intents', location)).toBe(1);
  });

  it('stores a 404 and replays it', async () => {
    const location = newLocation();
    const key = randomUUID();
    const path = `/v1/customers/${randomUUID()}/payment-methods`;
    const first = await post(location, path, key, cardInput()).expect(404);
    const retry = await post(location, path, key, cardInput()).expect(404);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('scopes keys to the location and to the client', async () => {
    const key = randomUUID();
    const [locationA, locationB] = [newLocation(), newLocation()];
    const a = await post(locationA, '/v1/customers', key, {}).expect(200);
    const b = await post(locationB, '/v1/customers', key, {}).expect(200);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();

    const otherClient = await testApp.tokenFor({ scopes: SCOPES, locations: ['*'] }, 'another-client');
    const c = await request(testApp.app)
      .post('/v1/customers')
      .set({ Authorization: `Bearer ${otherClient}`, [LOCATION_HEADER]: locationA, 'Idempotency-Key': key })
      .send({})
      .expect(200);
    expect(c.body.id).not.toBe(a.body.id);
    expect(await countRows('customers', locationA)).toBe(2);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'two words'],
    ['non-ASCII', 'clé'],
    ['sent twice', ['one', 'two']],
  ])('refuses a key that is %s with 400 naming Idempotency-Key, and creates nothing', async (_case, key) => {
    const location = newLocation();
    // An array goes out as one header line per value (Node's setHeader); supertest's types only admit it for Cookie.
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .set('Idempotency-Key', key as string)
      .send({})
      .expect(400);
    expect(response.body).toMatchObject({ code: 1000, messageKey: 'VALIDATION_FAILED', fieldName: 'Idempotency-Key' });
    expect(await countRows('customers', location)).toBe(0);
  });

  it('accepts a key of 255 visible characters', async () => {
    await post(newLocation(), '/v1/customers', '~'.repeat(255), {}).expect(200);
  });

  it('forgets a key once it expires, and purges expired keys', async () => {
    const location = newLocation();
    const key = randomUUID();
    const first = await post(location, '/v1/customers', key, {}).expect(200);
    await testApp.db
      .knex('idempotency_keys')
      .where({ location_id: location, key })
      .update({ expires_at: testApp.db.knex.raw("now() - interval '1 second'") });
    const after = await post(location, '/v1/customers', key, {}).expect(200);
    expect(after.body.id).not.toBe(first.body.id);
    expect(after.headers['idempotent-replayed']).toBeUndefined();

    await testApp.db
      .knex('idempotency_keys')
      .where({ location_id: location, key })
      .update({ expires_at: testApp.db.knex.raw("now() - interval '1 second'") });
    expect(await purgeExpiredIdempotencyKeys(testApp.db.knex)).toBeGreaterThanOrEqual(1);
    expect(await testApp.db.knex('idempotency_keys').where({ location_id: location })).toEqual([]);
  });

  it('ten concurrent requests with one key create exactly one record', async () => {
    const location = newLocation();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(location, '/v1/customers', key, { externalReferenceId: 'race' })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    const ids = new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.body.id));
    expect(ids.size).toBe(1);
    expect(await countRows('customers', location)).toBe(1);
    expect(await post(location, '/v1/customers', key, { externalReferenceId: 'race' }).expect(200)).toMatchObject({ body: { id: [...ids][0] } });
  });

  it('without a key, each POST creates a record', async () => {
    const location = newLocation();
    await post(location, '/v1/customers', undefined, {}).expect(200);
    await post(location, '/v1/customers', undefined, {}).expect(200);
    expect(await countRows('customers', location)).toBe(2);
  });
});
