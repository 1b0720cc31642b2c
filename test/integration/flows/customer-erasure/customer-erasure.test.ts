import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../../../factories/customers';
import { newLocation } from '../../../factories/locations';
import { rowsHolding as rowsHoldingIn } from '../../../support/rows-holding';
import { startTestApp, type TestApp } from '../../../support/test-app';

/** DELETE /v1/customers/{id}: the person is erased, everywhere, in one transaction, with the events of what went. */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const rowsHolding = (value: string) => rowsHoldingIn(testApp.db.knex, value);

describe('DELETE /v1/customers/{id}', () => {
  it("erases the person: cards, defaults, live intents canceled, and no row anywhere keeps its reference, description or intents' e-mail", async () => {
    const location = newLocation();
    const mark = randomUUID().slice(0, 8);
    const [reference, description, email] = [`ref-${mark}`, `desc-${mark}`, `mail-${mark}@example.com`];
    const created = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .set('Idempotency-Key', `create-${mark}`)
      .send({ externalReferenceId: reference, description: `old-${description}` })
      .expect(200);
    const id = created.body.id as string;
    await request(testApp.app).patch(`/v1/customers/${id}`).set(testApp.as(location)).send({ description }).expect(200);
    const card = await saveCard(testApp, location, id);
    await saveCard(testApp, location, id, cardInput({ card: { type: 'amex', lastFour: '0005', expiry: { month: '1', year: '2034' } } }));
    await request(testApp.app)
      .post(`/v1/customers/${id}/payment-methods/defaults`)
      .set(testApp.as(location))
      .send({ paymentMethodId: card.id, contextName: 'web' })
      .expect(200);
    const intent = (body: object) =>
      request(testApp.app)
        .post('/v1/payment-intents')
        .set(testApp.as(location))
        .set('Idempotency-Key', randomUUID())
        .send({ amount: 500, currency: 'USD', externalReferenceId: `order-${mark}`, customerId: id, email, ...body })
        .expect(201);
    const live = (await intent({})).body;
    const done = (await intent({})).body;
    await request(testApp.app).post(`/v1/payment-intents/${done.id}/cancel`).set(testApp.as(location)).expect(200);
    // Someone else at the location, who must keep everything.
    const other = await createCustomer(testApp, location);
    const otherCard = await saveCard(testApp, location, other.id);
    for (const value of [reference, description, email]) expect(await rowsHolding(value)).not.toEqual([]);

    const erased = await request(testApp.app).delete(`/v1/customers/${id}`).set(testApp.as(location)).expect(200);
    expect(erased.body).toEqual({ id, deleted: true });

    for (const value of [reference, description, `old-${description}`, email]) expect({ value, rows: await rowsHolding(value) }).toEqual({ value, rows: [] });
    await request(testApp.app).get(`/v1/customers/${id}`).set(testApp.as(location)).expect(404);
    await request(testApp.app).get(`/v1/customers/${id}/payment-methods`).set(testApp.as(location)).expect(404);
    await request(testApp.app).delete(`/v1/customers/${id}`).set(testApp.as(location)).expect(404);
    expect((await request(testApp.app).get('/v1/customers').set(testApp.as(location)).expect(200)).body.customers).toEqual([other]);
    // The intents stay (they are the location's records of payments), cut from the person.
    const liveNow = (await request(testApp.app).get(`/v1/payment-intents/${live.id}`).set(testApp.as(location)).expect(200)).body;
    expect(liveNow).toMatchObject({ status: 'CANCELED', customerId: null, email: null });
    expect((await request(testApp.app).get(`/v1/payment-intents/${done.id}`).set(testApp.as(location)).expect(200)).body).toMatchObject({
      customerId: null,
      email: null,
    });
    expect((await request(testApp.app).get(`/v1/customers/${other.id}/payment-methods`).set(testApp.as(location)).expect(200)).body.paymentMethods).toEqual([
      otherCard,
    ]);

    // The events of what went, then one customer.deleted without personal data; the history stays readable.
    const history = (await request(testApp.app).get(`/v1/customers/${id}/events?limit=100`).set(testApp.as(location)).expect(200)).body.events as Array<{
      type: string;
      data: { object: Record<string, unknown>; previous: Record<string, unknown> | null };
    }>;
    expect(history.slice(0, 5).map(({ type }) => type)).toEqual([
      'customer.deleted',
      'payment_intent.canceled',
      'payment_method.detached',
      'payment_method.detached',
      'default_payment_method.removed',
    ]);
    expect(history[0]?.data).toEqual({ object: { id, externalReferenceId: null, description: null }, previous: null });
    expect(history[1]?.data.previous).toEqual({ status: 'REQUIRES_PAYMENT_METHOD' });
    const updated = history.find(({ type }) => type === 'customer.updated');
    expect(updated?.data.previous).toEqual({ description: null });
    // Only the personal fields are nulled: every other field of the earlier events stays as it was.
    expect(history.find(({ type }) => type === 'customer.created')?.data.object).toEqual({ id, externalReferenceId: null, description: null });
    const intentCreated = history.filter(({ type }) => type === 'payment_intent.created').map(({ data }) => data.object);
    expect(intentCreated).toHaveLength(2);
    for (const object of intentCreated) {
      expect(object).toMatchObject({ amount: 500, currency: 'USD', externalReferenceId: `order-${mark}`, customerId: id, email: null });
    }
    // A card carries nothing personal: its events are as they were.
    expect(history.find(({ type, data }) => type === 'payment_method.attached' && data.object.id === card.id)?.data.object).toEqual(card);
  });

  it('leaves an authorized intent to be captured or voided by its capture window, cut from the person; a paid one stays paid', async () => {
    const location = newLocation();
    const id = (await createCustomer(testApp, location)).id;
    const card = await saveCard(testApp, location, id);
    const intent = async () =>
      (
        await request(testApp.app)
          .post('/v1/payment-intents')
          .set(testApp.as(location))
          .send({ amount: 700, currency: 'USD', externalReferenceId: 'order-served', customerId: id, email: 'pat@example.com' })
          .expect(201)
      ).body.id as string;
    const [authorized, paid] = [await intent(), await intent()];
    await request(testApp.app)
      .post(`/v1/payment-intents/${authorized}/confirm`)
      .set(testApp.as(location))
      .send({ paymentMethodId: card.id })
      .expect(200, /REQUIRES_CAPTURE/);
    await request(testApp.app).post(`/v1/payment-intents/${paid}/confirm`).set(testApp.as(location)).send({ paymentMethodId: card.id }).expect(200);
    await request(testApp.app)
      .post(`/v1/payment-intents/${paid}/capture`)
      .set(testApp.as(location))
      .expect(200, /SUCCEEDED/);

    await request(testApp.app).delete(`/v1/customers/${id}`).set(testApp.as(location)).expect(200);
    const read = async (intentId: string) => (await request(testApp.app).get(`/v1/payment-intents/${intentId}`).set(testApp.as(location)).expect(200)).body;
    expect(await read(authorized)).toMatchObject({ status: 'REQUIRES_CAPTURE', customerId: null, email: null });
    expect(await read(paid)).toMatchObject({ status: 'SUCCEEDED', customerId: null, email: null, latestPayment: { status: 'CAPTURED' } });
    // The order was served: the authorization can still be captured.
    await request(testApp.app)
      .post(`/v1/payment-intents/${authorized}/capture`)
      .set(testApp.as(location))
      .expect(200, /SUCCEEDED/);
  });

  it("is a 404 for another location's customer or an unknown id, changing nothing", async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    await request(testApp.app).delete(`/v1/customers/${customer.id}`).set(testApp.as(newLocation())).expect(404);
    await request(testApp.app).delete('/v1/customers/019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9').set(testApp.as(location)).expect(404);
    expect((await request(testApp.app).get(`/v1/customers/${customer.id}`).set(testApp.as(location)).expect(200)).body).toEqual(customer);
  });
});
