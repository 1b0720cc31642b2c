import request from 'supertest';
import { createCustomer } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /v1/customers', () => {
  it('creates a customer and answers 200 with CustomerResponse', async () => {
    const location = newLocation();
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .send({ externalReferenceId: 'crm-42', description: 'ada@example.com' })
      .expect(200)
      .expect('Content-Type', /application\/json/);

    expect(response.body).toEqual({ id: expect.stringMatching(UUID), externalReferenceId: 'crm-42', description: 'ada@example.com' });
    const stored = await request(testApp.app).get(`/v1/customers/${response.body.id}`).set(testApp.as(location)).expect(200);
    expect(stored.body).toEqual(response.body);
  });

  it('reads an empty body as {} and answers absent fields as null', async () => {
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(newLocation())).expect(200);
    expect(response.body).toEqual({ id: expect.stringMatching(UUID), externalReferenceId: null, description: null });
  });

  it('reads the JSON body under any Content-Type (the spec declares a wildcard media type)', async () => {
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .set('Content-Type', 'text/plain')
      .send('{"externalReferenceId":"plain"}')
      .expect(200);
    expect(response.body.externalReferenceId).toBe('plain');
  });

  it('refuses unknown fields, naming each, and never lets the caller choose the id', async () => {
    const chosen = '00000000-0000-4000-8000-000000000000';
    const location = newLocation();
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .send({ id: chosen, externalReferenceId: 'x', isAdmin: true })
      .expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1000, messageKey: 'VALIDATION_FAILED' });
    expect(response.body.errors.map((error: { fieldName: string }) => error.fieldName).sort()).toEqual(['id', 'isAdmin']);
    await request(testApp.app).get(`/v1/customers/${chosen}`).set(testApp.as(location)).expect(404);
    const stored = await testApp.db.knex('customers').where({ location_id: location }).count<{ count: string }[]>('* as count');
    expect(Number(stored[0]?.count)).toBe(0);
  });

  it('refuses a misspelt field rather than creating a customer without it, and suggests the field meant', async () => {
    const location = newLocation();
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(location)).send({ externalReferenceID: 'crm-42' }).expect(400);
    expect(response.body).toMatchObject({
      code: 1000,
      messageKey: 'VALIDATION_FAILED',
      fieldName: 'externalReferenceID',
      message: 'Unknown field: did you mean externalReferenceId? Field names are case-sensitive.',
    });
    const stored = await testApp.db.knex('customers').where({ location_id: location }).count<{ count: string }[]>('* as count');
    expect(Number(stored[0]?.count)).toBe(0);
  });

  it('accepts the longest allowed strings, with line breaks in the description', async () => {
    const body = { externalReferenceId: 'e'.repeat(255), description: `${'d'.repeat(1000)}\nline two` };
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(newLocation())).send(body).expect(200);
    expect(response.body).toMatchObject(body);
  });

  it.each([
    ['externalReferenceId', { externalReferenceId: 'e'.repeat(256) }],
    ['description', { description: 'd'.repeat(1025) }],
    ['externalReferenceId', { externalReferenceId: 'nul\u0000inside' }],
    ['description', { description: 'nul\u0000inside' }],
    ['externalReferenceId', { externalReferenceId: 'line\nbreak' }],
    ['externalReferenceId', { externalReferenceId: 42 }],
    ['description', { description: 'lone \ud800 surrogate' }],
  ])('refuses a bad %s with 400 naming the field and stores nothing', async (fieldName, body) => {
    const location = newLocation();
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(location)).send(body).expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1000, messageKey: 'VALIDATION_FAILED', fieldName });
    const count = await testApp.db.knex('customers').where({ location_id: location }).count<{ count: string }[]>('* as count');
    expect(Number(count[0]?.count)).toBe(0);
  });

  it('lists every field at fault in errors[] when there are several', async () => {
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .send({ externalReferenceId: 1, description: 2 })
      .expect(400);
    expect(response.body.fieldName).toBeUndefined();
    expect(response.body.errors.map((error: { fieldName: string }) => error.fieldName).sort()).toEqual(['description', 'externalReferenceId']);
  });

  it.each([['[]'], ['"text"'], ['7'], ['null']])('refuses the non-object body %s with 400', async (raw) => {
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .set('Content-Type', 'application/json')
      .send(raw)
      .expect(400);
    expect(response.body.status).toBe(400);
  });
});

describe('POST /v1/customers with an externalReferenceId the location already holds (get-or-create)', () => {
  const countAt = async (location: string) =>
    Number((await testApp.db.knex('customers').where({ location_id: location }).count<{ count: string }[]>('* as count'))[0]?.count);

  it('answers 200 with that customer, unchanged, and creates nothing', async () => {
    const location = newLocation();
    const first = await createCustomer(testApp, location, { externalReferenceId: 'crm-42', description: 'ada@example.com' });
    const again = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .send({ externalReferenceId: 'crm-42', description: 'a different description' })
      .expect(200);
    expect(again.body).toEqual(first);
    expect(await countAt(location)).toBe(1);
  });

  it('still creates a new customer for every create without a reference, and per location', async () => {
    const location = newLocation();
    const [a, b] = [await createCustomer(testApp, location, {}), await createCustomer(testApp, location, { externalReferenceId: null })];
    expect(a.id).not.toBe(b.id);
    const elsewhere = await createCustomer(testApp, newLocation(), { externalReferenceId: 'crm-42' });
    const here = await createCustomer(testApp, location, { externalReferenceId: 'crm-42' });
    expect(here.id).not.toBe(elsewhere.id);
    expect(await countAt(location)).toBe(3);
  });

  it('makes one customer of twenty concurrent creates with one reference, and answers it to all', async () => {
    const location = newLocation();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        request(testApp.app)
          .post('/v1/customers')
          .set(testApp.as(location))
          .send({ externalReferenceId: 'crm-race', description: `try ${index}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(await countAt(location)).toBe(1);
  });
});

describe('GET /v1/customers/{id}', () => {
  it('answers 404 CUSTOMER_NOT_FOUND for an unknown id', async () => {
    const response = await request(testApp.app).get('/v1/customers/0190a6e4-0000-7000-8000-000000000000').set(testApp.as(newLocation())).expect(404);
    expect(response.body).toMatchObject({ status: 404, code: 2001, messageKey: 'CUSTOMER_NOT_FOUND' });
  });

  it('answers 400 naming id when the path id is not a UUID', async () => {
    const response = await request(testApp.app).get('/v1/customers/not-a-uuid').set(testApp.as(newLocation())).expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1000, messageKey: 'VALIDATION_FAILED', fieldName: 'id' });
  });

  it('reads an upper-case UUID as the same customer', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const response = await request(testApp.app).get(`/v1/customers/${customer.id.toUpperCase()}`).set(testApp.as(location)).expect(200);
    expect(response.body.id).toBe(customer.id);
  });
});

describe('GET /v1/customers?externalReferenceId=', () => {
  it("answers the location's one customer with that reference, never another location's", async () => {
    const location = newLocation();
    const first = await createCustomer(testApp, location, { externalReferenceId: 'shared', description: 'first' });
    await createCustomer(testApp, location, { externalReferenceId: 'shared', description: 'second' });
    await createCustomer(testApp, location, { externalReferenceId: 'other' });
    await createCustomer(testApp, newLocation(), { externalReferenceId: 'shared' });

    const response = await request(testApp.app).get('/v1/customers').query({ externalReferenceId: 'shared' }).set(testApp.as(location)).expect(200);
    expect(response.body).toEqual({ results: 1, customers: [first], hasMore: false });
  });

  it('answers an empty list when nothing matches', async () => {
    const response = await request(testApp.app).get('/v1/customers?externalReferenceId=nobody').set(testApp.as(newLocation())).expect(200);
    expect(response.body).toEqual({ results: 0, customers: [], hasMore: false });
  });

  it.each([
    ['empty', '/v1/customers?externalReferenceId='],
    ['repeated', '/v1/customers?externalReferenceId=a&externalReferenceId=b'],
    ['holding NUL', '/v1/customers?externalReferenceId=a%00b'],
  ])('refuses a %s externalReferenceId with 400 naming it', async (_case, path) => {
    const response = await request(testApp.app).get(path).set(testApp.as(newLocation())).expect(400);
    expect(response.body).toMatchObject({ status: 400, fieldName: 'externalReferenceId' });
  });
});
