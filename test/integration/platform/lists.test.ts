import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { API_OPERATIONS } from '../../../src/api-operations';
import { createCustomer } from '../../factories/customers';
import { paidIntent } from '../../factories/checkout';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * A list is one mechanism (issue 53, item 5): every list answers
 * `{results, <items>, hasMore}`, says its paging in the same words, and
 * refuses a `startingAfter` that is not one of the records it lists (400
 * naming the field) — the webhook endpoints, their attempts and the events
 * lists took any id before. Every list of the registry is tried, so a new
 * one is held to it the day it is written.
 */
let t: TestApp;
let location: string;
let ids: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  location = newLocation();
  const customer = await createCustomer(t, location);
  const intent = await paidIntent(t, location);
  const endpoint = (
    await request(t.app)
      .post('/v1/webhook-endpoints')
      .set(t.as(location))
      .send({ url: 'https://hooks.example.com/in', enabledEvents: ['*'] })
      .expect(201)
  ).body as { id: string };
  // Two days on, the paid intent's capture has closed into a batch and its payout, and is a sales day's line.
  const { businessDate } = (await request(t.app).get('/v1/batches/current').set(t.as(location)).expect(200)).body as { businessDate: string };
  await request(t.app)
    .post('/v1/sandbox/clock/advance')
    .set(t.as(location))
    .send({ seconds: 2 * 86_400 })
    .expect(200);
  const batches = await request(t.app).get('/v1/batches').query({ status: 'CLOSED' }).set(t.as(location)).expect(200);
  const batch = batches.body.batches[0] as { id: string; payoutId: string };
  ids = { customer: customer.id, intent: intent.intent.id, endpoint: endpoint.id, batch: batch.id, payout: batch.payoutId, businessDate };
});
afterAll(() => t.close());

const lists = API_OPERATIONS.filter((operation) => operation.method === 'get' && operation.query?.shape.startingAfter !== undefined);

/** The operation's path with each `{id}` its parent's (a customer, an intent, a batch, a payout or an endpoint of the location), and the sales day's date. */
function concrete(path: string): string {
  const parent = path.startsWith('/v1/customers/')
    ? ids.customer
    : path.startsWith('/v1/payment-intents/')
      ? ids.intent
      : path.startsWith('/v1/batches/')
        ? ids.batch
        : path.startsWith('/v1/payouts/')
          ? ids.payout
          : ids.endpoint;
  return path.replace('{id}', parent as string).replace('{businessDate}', ids.businessDate as string);
}

it('finds every list of the registry (sixteen)', () => {
  expect(lists.map((operation) => operation.operationId).sort()).toEqual(
    [
      'listCustomers',
      'listPaymentIntents',
      'listPaymentIntentRefunds',
      'listMandates',
      'listEvents',
      'listCustomerEvents',
      'listWebhookEndpoints',
      'listWebhookDeliveries',
      'listBatches',
      'listBatchLines',
      'listPayouts',
      'listPayoutLines',
      'listSalesDayLines',
      'listDisputes',
      'listPaymentIntentDisputes',
      'listSetupIntents',
    ].sort(),
  );
});

it.each(lists.map((operation) => [operation.operationId, operation] as const))(
  '%s answers the page envelope, says its paging alike, and refuses a cursor that is none of its records',
  async (_id, operation) => {
    const path = concrete(operation.path);
    const page = await request(t.app).get(path).set(t.as(location)).expect(200);
    const keys = Object.keys(page.body);
    expect(keys[0]).toBe('results');
    expect(keys.at(-1)).toBe('hasMore');
    expect(page.body.results).toBe((page.body[keys[1] as string] as unknown[]).length);
    expect(operation.description).toMatch(
      /`limit` per page \(default 10, at most 100\): when `hasMore` is true, ask again with `startingAfter` set to the last `id` of the page\. A `startingAfter` that is not (.+) is a 400\./,
    );
    const cursorOf = /A `startingAfter` that is not (.+?) is a 400\./.exec(operation.description)?.[1] as string;
    const refused = await request(t.app).get(path).query({ startingAfter: randomUUID() }).set(t.as(location)).expect(400);
    expect(refused.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'startingAfter' });
    expect(refused.body.message).toBe(`Must be the id of ${cursorOf}: the last one of the previous page.`);
  },
);
