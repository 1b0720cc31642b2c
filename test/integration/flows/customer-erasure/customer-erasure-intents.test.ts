import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SandboxProcessor } from '../../../../src/payment-processor/sandbox-processor';
import { confirm } from '../../../factories/checkout';
import { createCustomer, saveCard } from '../../../factories/customers';
import { newLocation } from '../../../factories/locations';
import { GatedProcessor } from '../../../support/gated-processor';
import { rowsHolding } from '../../../support/rows-holding';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * Issue 36, item 2: an erasure covers every intent that is or ever was the
 * customer's, however it came to be theirs (created with them, attached
 * later, detached before the erasure) and however its moves interleave with
 * the erasure; and every event of such an intent, `previous` included.
 * Each case searches every table, every column and JSON path, for the
 * person's values afterwards.
 */
let testApp: TestApp;
let gated: GatedProcessor;
beforeAll(async () => {
  testApp = await startTestApp({
    processor: (db) => {
      gated = new GatedProcessor(new SandboxProcessor(db.knex, { latencyMs: 0 }));
      return gated;
    },
  });
});
afterAll(() => testApp.close());

/** A customer with a reference, a description and an e-mail of their own, all three marked to be searched for. */
async function person(location: string) {
  const mark = randomUUID().slice(0, 8);
  const values = { reference: `ref-${mark}`, description: `desc-${mark}`, email: `mail-${mark}@example.com` };
  const customer = await createCustomer(testApp, location, { externalReferenceId: values.reference, description: values.description });
  return { id: customer.id, values };
}

const createIntent = (location: string, body: object) =>
  request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({ amount: 900, currency: 'USD', externalReferenceId: `order-${randomUUID().slice(0, 8)}`, ...body })
    .expect(201);

const update = (location: string, id: string, body: object) =>
  request(testApp.app).post(`/v1/payment-intents/${id}`).set(testApp.as(location)).send(body).expect(200);
const erase = (location: string, id: string) => request(testApp.app).delete(`/v1/customers/${id}`).set(testApp.as(location)).expect(200);
const readIntent = async (location: string, id: string) =>
  (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200)).body as Record<string, unknown>;

async function expectNothingLeft(values: Record<string, string>): Promise<void> {
  for (const value of Object.values(values)) expect({ value, rows: await rowsHolding(testApp.db.knex, value) }).toEqual({ value, rows: [] });
}

describe('DELETE /v1/customers/{id}, for intents tied to the customer another way', () => {
  it('(a) erases the e-mail of an intent created without a customer and attached to them later, in every event', async () => {
    const location = newLocation();
    const { id, values } = await person(location);
    const intent = (await createIntent(location, { email: values.email })).body;
    await update(location, intent.id, { customerId: id });
    expect(await rowsHolding(testApp.db.knex, values.email)).toContainEqual({ table: 'events', count: 2 });

    await erase(location, id);

    await expectNothingLeft(values);
    expect(await readIntent(location, intent.id)).toMatchObject({ customerId: null, email: null, status: 'CANCELED' });
  });

  it('(b) erases the e-mail of an intent detached from them before the erasure, on the intent and in every event', async () => {
    const location = newLocation();
    const { id, values } = await person(location);
    const intent = (await createIntent(location, { email: values.email, customerId: id })).body;
    await update(location, intent.id, { customerId: null });

    await erase(location, id);

    await expectNothingLeft(values);
    // Not theirs any more: it is not canceled for them, only stripped of what was theirs.
    expect(await readIntent(location, intent.id)).toMatchObject({ customerId: null, email: null, status: 'REQUIRES_PAYMENT_METHOD' });
  });

  it('(c) leaves nothing of them on an intent whose automatic confirm was at the processor while they were erased', async () => {
    const location = newLocation();
    const { id, values } = await person(location);
    const card = await saveCard(testApp, location, id);
    const intent = (await createIntent(location, { email: values.email, customerId: id, captureMethod: 'AUTOMATIC' })).body;
    gated.hold();
    const confirming = confirm(testApp, location, intent.id, { paymentMethodId: card.id }).then((response) => response);
    try {
      while ((await readIntent(location, intent.id)).status !== 'PROCESSING') await new Promise((resolve) => setTimeout(resolve, 10));
      await erase(location, id);
    } finally {
      gated.release();
    }
    const confirmed = await confirming;

    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'SUCCEEDED', customerId: null, email: null });
    expect(await readIntent(location, intent.id)).toMatchObject({ status: 'SUCCEEDED', customerId: null, email: null });
    expect(Number((await testApp.db.knex('payment_intents').where({ location_id: location, customer_id: id }).count({ count: '*' }).first())?.count)).toBe(0);
    await expectNothingLeft(values);
  });
});
