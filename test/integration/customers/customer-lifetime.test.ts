import request from 'supertest';
import { createCustomer } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/** Customers over their lifetime: listed and paged, and changed. */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

type Customer = { id: string; externalReferenceId: string | null; description: string | null };

async function page(location: string, query: string): Promise<{ results: number; customers: Customer[]; hasMore: boolean }> {
  return (await request(testApp.app).get(`/v1/customers?${query}`).set(testApp.as(location)).expect(200)).body;
}

/** Every customer of the location, walking pages of `limit`. */
async function walk(location: string, limit: number, between: () => Promise<void> = async () => {}): Promise<Customer[]> {
  const seen: Customer[] = [];
  let cursor = '';
  for (;;) {
    const answer = await page(location, `limit=${limit}${cursor}`);
    expect(answer.results).toBe(answer.customers.length);
    seen.push(...answer.customers);
    if (!answer.hasMore) return seen;
    cursor = `&startingAfter=${answer.customers.at(-1)?.id}`;
    await between();
  }
}

describe('GET /v1/customers, paged', () => {
  it('walks every customer once, oldest first, in pages of any size, the last page saying hasMore false', async () => {
    const location = newLocation();
    const made: Customer[] = [];
    for (let i = 0; i < 7; i += 1) made.push(await createCustomer(testApp, location));
    await createCustomer(testApp, newLocation());
    for (const limit of [1, 3, 7, 100]) expect(await walk(location, limit)).toEqual(made);
    expect(await page(location, '')).toEqual({ results: 7, customers: made, hasMore: false });
    expect(await page(location, 'limit=7')).toMatchObject({ results: 7, hasMore: false });
    expect(await page(location, `startingAfter=${made[6]?.id}`)).toEqual({ results: 0, customers: [], hasMore: false });
  });

  it('goes on from a cursor whose customer was erased since', async () => {
    const location = newLocation();
    const made: Customer[] = [];
    for (let i = 0; i < 4; i += 1) made.push(await createCustomer(testApp, location));
    const first = await page(location, 'limit=2');
    await request(testApp.app).delete(`/v1/customers/${first.customers[1]?.id}`).set(testApp.as(location)).expect(200);
    expect(await page(location, `limit=2&startingAfter=${first.customers[1]?.id}`)).toEqual({ results: 2, customers: made.slice(2), hasMore: false });
  });

  it('never skips or repeats a customer that existed when a walk began, while others are created during it', async () => {
    const location = newLocation();
    const before: Customer[] = [];
    for (let i = 0; i < 6; i += 1) before.push(await createCustomer(testApp, location));
    const seen = await walk(location, 2, async () => {
      await createCustomer(testApp, location);
    });
    const ids = seen.map(({ id }) => id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, before.length)).toEqual(before.map(({ id }) => id));
  });

  it('filters by reference and creation time, and a cursor from another location shows nothing of it', async () => {
    const location = newLocation();
    const ada = await createCustomer(testApp, location, { externalReferenceId: 'ada' });
    await createCustomer(testApp, location);
    expect(await page(location, 'externalReferenceId=ada')).toEqual({ results: 1, customers: [ada], hasMore: false });
    expect((await page(location, 'createdAfter=2000-01-01T00:00:00Z')).results).toBe(2);
    expect((await page(location, `createdBefore=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).results).toBe(0);

    // Another location's customer, and an id nobody holds: the same 400, telling nothing about the other location.
    const theirs = await createCustomer(testApp, newLocation());
    const foreign = await request(testApp.app).get(`/v1/customers?startingAfter=${theirs.id}`).set(testApp.as(location)).expect(400);
    const unknown = await request(testApp.app).get('/v1/customers?startingAfter=019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9').set(testApp.as(location)).expect(400);
    expect({ ...foreign.body, requestId: undefined }).toEqual({ ...unknown.body, requestId: undefined });
    expect(foreign.body.fieldName).toBe('startingAfter');
    for (const [query, fieldName] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['startingAfter=nope', 'startingAfter'],
      ['createdAfter=today', 'createdAfter'],
    ]) {
      const refused = await request(testApp.app).get(`/v1/customers?${query}`).set(testApp.as(location)).expect(400);
      expect(refused.body.fieldName).toBe(fieldName);
    }
  });
});

describe('PATCH /v1/customers/{id}', () => {
  it('changes the fields sent, clears those sent as null, keeps the rest, and records what they were', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location, { externalReferenceId: 'crm-1', description: 'ada@example.com' });
    const patch = (body: object) => request(testApp.app).patch(`/v1/customers/${customer.id}`).set(testApp.as(location)).send(body);

    expect((await patch({ description: 'ada.lovelace@example.com' }).expect(200)).body).toEqual({ ...customer, description: 'ada.lovelace@example.com' });
    expect((await patch({ externalReferenceId: null }).expect(200)).body).toEqual({
      ...customer,
      externalReferenceId: null,
      description: 'ada.lovelace@example.com',
    });
    // Nothing changes: no event.
    await patch({}).expect(200);
    await patch({ description: 'ada.lovelace@example.com' }).expect(200);
    expect((await request(testApp.app).get(`/v1/customers/${customer.id}`).set(testApp.as(location)).expect(200)).body.externalReferenceId).toBeNull();

    const events = (await request(testApp.app).get(`/v1/customers/${customer.id}/events?type=customer.updated`).set(testApp.as(location)).expect(200)).body
      .events;
    expect(events.map(({ data }: { data: unknown }) => data)).toEqual([
      { object: { id: customer.id, externalReferenceId: null, description: 'ada.lovelace@example.com' }, previous: { externalReferenceId: 'crm-1' } },
      { object: { id: customer.id, externalReferenceId: 'crm-1', description: 'ada.lovelace@example.com' }, previous: { description: 'ada@example.com' } },
    ]);
  });

  it("refuses a reference another customer holds (409 naming it), bad fields (400), and another location's customer (404), changing nothing", async () => {
    const location = newLocation();
    await createCustomer(testApp, location, { externalReferenceId: 'taken' });
    const customer = await createCustomer(testApp, location, { externalReferenceId: 'mine' });
    const patch = (body: object, at = location) => request(testApp.app).patch(`/v1/customers/${customer.id}`).set(testApp.as(at)).send(body);

    const taken = await patch({ externalReferenceId: 'taken' }).expect(409);
    expect(taken.body).toMatchObject({ code: 3006, fieldName: 'externalReferenceId' });
    expect((await patch({ externalReferenceID: 'typo' }).expect(400)).body.fieldName).toBe('externalReferenceID');
    expect((await patch({ description: 'x'.repeat(1025) }).expect(400)).body.fieldName).toBe('description');
    await patch({ description: 'stolen' }, newLocation()).expect(404);
    await request(testApp.app).patch('/v1/customers/019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9').set(testApp.as(location)).send({}).expect(404);
    expect((await request(testApp.app).get(`/v1/customers/${customer.id}`).set(testApp.as(location)).expect(200)).body).toEqual(customer);
  });
});
