import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { webhookPayloadProblems } from '../../support/contract/openapi-contract';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * The change log: every committed change has exactly one event, with the
 * resource as the API answered it and the fields it changed; a refused
 * request, a rolled-back one and a replay have none.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ maxCardsPerCustomer: 2 });
});
afterAll(() => testApp.close());

interface Event {
  id: string;
  type: string;
  createdAt: string;
  locationId: string;
  customerId: string | null;
  requestId: string | null;
  idempotencyKey: string | null;
  clientId: string | null;
  data: { object: Record<string, unknown>; previous: Record<string, unknown> | null };
}

async function eventsOf(location: string, query = ''): Promise<Event[]> {
  const response = await request(testApp.app).get(`/v1/events?limit=100${query}`).set(testApp.as(location)).expect(200);
  const events = response.body.events as Event[];
  // Each is also a webhook body: it must match the document's `webhooks` entry for its type.
  for (const event of events) expect({ type: event.type, problems: webhookPayloadProblems(JSON.stringify(event)) }).toEqual({ type: event.type, problems: [] });
  return events;
}

/** The events, oldest first (the API answers newest first). */
async function historyOf(location: string): Promise<Event[]> {
  return (await eventsOf(location)).reverse();
}

describe('the change log', () => {
  it('records a created customer with the request that made it, and nothing for a get-or-create that found one', async () => {
    const location = newLocation();
    const created = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .set('Idempotency-Key', 'create-ada')
      .send({ externalReferenceId: 'crm-ada', description: 'ada@example.com' })
      .expect(200);
    // The same reference again: the existing customer, no change, no event.
    await request(testApp.app).post('/v1/customers').set(testApp.as(location)).send({ externalReferenceId: 'crm-ada' }).expect(200);

    const events = await historyOf(location);
    expect(events).toEqual([
      {
        id: expect.any(String),
        type: 'customer.created',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        locationId: location,
        customerId: created.body.id,
        requestId: created.headers['x-request-id'],
        idempotencyKey: 'create-ada',
        clientId: 'test-client',
        data: { object: created.body, previous: null },
      },
    ]);
  });

  it('records cards attached, updated (previous expiry), and detached with the defaults that pointed at them', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const card = await saveCard(testApp, location, customer.id, cardInput({ fingerprint: 'fp-1' }));
    // The same card with the same expiry: nothing changed, no event.
    await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(cardInput({ fingerprint: 'fp-1' }))
      .expect(200);
    const renewed = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(cardInput({ fingerprint: 'fp-1', card: { type: 'visa', lastFour: '4242', expiry: { month: '11', year: '2035' } } }))
      .expect(200);
    for (const contextName of ['web', 'kiosk']) {
      await request(testApp.app)
        .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
        .set(testApp.as(location))
        .send({ paymentMethodId: card.id, contextName })
        .expect(200);
    }
    await request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/${card.id}`).set(testApp.as(location)).expect(204);

    const events = (await historyOf(location)).slice(1);
    expect(events.map(({ type }) => type)).toEqual([
      'payment_method.attached',
      'payment_method.updated',
      'default_payment_method.set',
      'default_payment_method.set',
      'default_payment_method.removed',
      'default_payment_method.removed',
      'payment_method.detached',
    ]);
    expect(events[0]?.data).toEqual({ object: card, previous: null });
    expect(events[1]?.data).toEqual({
      object: renewed.body,
      previous: { month: card.month, year: card.year, card: { expiry: { month: card.month, year: card.year } } },
    });
    expect(events[2]?.data).toEqual({ object: { paymentMethodId: card.id, contextName: 'web' }, previous: null });
    expect(new Set(events.slice(4, 6).map((event) => event.data.object['contextName']))).toEqual(new Set(['web', 'kiosk']));
    expect(events[6]?.data).toEqual({ object: renewed.body, previous: null });
    expect(events.every((event) => event.customerId === customer.id)).toBe(true);
  });

  it('names the card a replaced default held, records a removed default, and nothing for setting the same card again', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const first = await saveCard(testApp, location, customer.id);
    const second = await saveCard(
      testApp,
      location,
      customer.id,
      cardInput({ card: { type: 'mastercard', lastFour: '4444', expiry: { month: '1', year: '2034' } } }),
    );
    const setDefault = (paymentMethodId: string) =>
      request(testApp.app)
        .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
        .set(testApp.as(location))
        .send({ paymentMethodId, contextName: 'web' })
        .expect(200);
    await setDefault(first.id);
    await setDefault(second.id);
    await setDefault(second.id);
    await request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/defaults/web`).set(testApp.as(location)).expect(200);

    const events = (await historyOf(location)).filter(({ type }) => type.startsWith('default_payment_method.'));
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'default_payment_method.set', data: { object: { paymentMethodId: first.id, contextName: 'web' }, previous: null } },
      { type: 'default_payment_method.set', data: { object: { paymentMethodId: second.id, contextName: 'web' }, previous: { paymentMethodId: first.id } } },
      { type: 'default_payment_method.removed', data: { object: { paymentMethodId: second.id, contextName: 'web' }, previous: null } },
    ]);
  });

  it('keeps the chain of replaced defaults under concurrent sets: one first set, and each event a real change', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const first = await saveCard(testApp, location, customer.id);
    const second = await saveCard(
      testApp,
      location,
      customer.id,
      cardInput({ card: { type: 'amex', lastFour: '0005', expiry: { month: '1', year: '2034' } } }),
    );
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(testApp.app)
          .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
          .set(testApp.as(location))
          .send({ paymentMethodId: i % 3 === 0 ? first.id : second.id, contextName: 'web' })
          .expect(200),
      ),
    );
    const sets = (await historyOf(location)).filter(({ type }) => type === 'default_payment_method.set');
    expect(sets.filter(({ data }) => data.previous === null)).toHaveLength(1);
    for (const { data } of sets) expect(data.previous?.['paymentMethodId']).not.toBe(data.object['paymentMethodId']);
    // Between two cards, each change moves to the other: the transitions alternate, so their count fixes the last one.
    const final = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods/defaults/web`).set(testApp.as(location)).expect(200);
    const firstSet = sets.find(({ data }) => data.previous === null)?.data.object['paymentMethodId'];
    const expectedFinal = sets.length % 2 === 1 ? firstSet : [first.id, second.id].find((id) => id !== firstSet);
    expect(final.body.paymentMethodId).toBe(expectedFinal);
  });

  it('records intents created and canceled, never with their session secret', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const intent = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(location))
      .send({ amount: 1250, currency: 'USD', externalReferenceId: 'order-7', customerId: customer.id })
      .expect(201);
    const canceled = await request(testApp.app).post(`/v1/payment-intents/${intent.body.id}/cancel`).set(testApp.as(location)).expect(200);

    const events = (await historyOf(location)).slice(1);
    const { sessionSecret: _created, ...createdObject } = intent.body as Record<string, unknown>;
    const { sessionSecret: _canceled, ...canceledObject } = canceled.body as Record<string, unknown>;
    expect(events.map(({ type, customerId, data }) => ({ type, customerId, data }))).toEqual([
      { type: 'payment_intent.created', customerId: customer.id, data: { object: createdObject, previous: null } },
      { type: 'payment_intent.canceled', customerId: customer.id, data: { object: canceledObject, previous: { status: 'REQUIRES_PAYMENT_METHOD' } } },
    ]);
    expect(JSON.stringify(events)).not.toContain(intent.body.sessionSecret);
  });

  it('records nothing for a refused request, a rolled-back one or an idempotent replay', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    await saveCard(testApp, location, customer.id);
    await saveCard(testApp, location, customer.id, cardInput({ card: { type: 'visa', lastFour: '1881', expiry: { month: '2', year: '2033' } } }));
    const before = await eventsOf(location);

    // A 400, a 404, and a 409 whose transaction locked the customer, then rolled back.
    await request(testApp.app).post('/v1/customers').set(testApp.as(location)).send({ externalReferenceID: 'typo' }).expect(400);
    await request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/${customer.id}`).set(testApp.as(location)).expect(404);
    await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(cardInput({ card: { type: 'visa', lastFour: '0005', expiry: { month: '2', year: '2033' } } }))
      .expect(409);
    await request(testApp.app)
      .post(`/v1/payment-intents`)
      .set(testApp.as(location))
      .send({ amount: 1, currency: 'USD', externalReferenceId: 'o', customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9' })
      .expect(404);
    // A keyed create, then its replay: one customer, one event.
    for (let i = 0; i < 2; i += 1) {
      await request(testApp.app).post('/v1/customers').set(testApp.as(location)).set('Idempotency-Key', 'once').send({}).expect(200);
    }

    const after = await eventsOf(location);
    expect(after.slice(1)).toEqual(before);
    expect(after[0]).toMatchObject({ type: 'customer.created', idempotencyKey: 'once' });
  });
});

describe('reading events', () => {
  it('pages newest first with startingAfter, and filters by type, prefix, customer and time', async () => {
    const location = newLocation();
    const ada = await createCustomer(testApp, location);
    const bob = await createCustomer(testApp, location);
    await saveCard(testApp, location, ada.id);
    const all = await eventsOf(location);
    expect(all.map(({ type }) => type)).toEqual(['payment_method.attached', 'customer.created', 'customer.created']);

    const first = await request(testApp.app).get('/v1/events?limit=2').set(testApp.as(location)).expect(200);
    expect(first.body).toEqual({ results: 2, events: all.slice(0, 2), hasMore: true });
    const second = await request(testApp.app).get(`/v1/events?limit=2&startingAfter=${all[1]?.id}`).set(testApp.as(location)).expect(200);
    expect(second.body).toEqual({ results: 1, events: all.slice(2), hasMore: false });

    expect((await eventsOf(location, '&type=customer.created')).map(({ customerId }) => customerId)).toEqual([bob.id, ada.id]);
    expect((await eventsOf(location, '&type=payment_method.*')).map(({ type }) => type)).toEqual(['payment_method.attached']);
    expect((await eventsOf(location, `&customerId=${bob.id}`)).map(({ type }) => type)).toEqual(['customer.created']);
    const oldest = all[2] as (typeof all)[number];
    expect(await eventsOf(location, `&createdBefore=${encodeURIComponent(oldest.createdAt)}`)).toEqual([]);
    expect(await eventsOf(location, `&createdAfter=${encodeURIComponent(new Date(Date.parse(oldest.createdAt) - 60_000).toISOString())}`)).toEqual(all);

    const one = await request(testApp.app).get(`/v1/events/${oldest.id}`).set(testApp.as(location)).expect(200);
    expect(one.body).toEqual(oldest);
  });

  it("reads a customer's history, and refuses bad filters with the field at fault", async () => {
    const location = newLocation();
    const ada = await createCustomer(testApp, location);
    await createCustomer(testApp, location);
    const card = await saveCard(testApp, location, ada.id);
    const history = await request(testApp.app).get(`/v1/customers/${ada.id}/events`).set(testApp.as(location)).expect(200);
    expect(history.body.events.map((event: Event) => [event.type, event.clientId])).toEqual([
      ['payment_method.attached', 'test-client'],
      ['customer.created', 'test-client'],
    ]);
    expect(history.body.events[0].data.object.id).toBe(card.id);

    await request(testApp.app).get('/v1/customers/019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9/events').set(testApp.as(location)).expect(404);
    for (const [query, fieldName] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['type=customer', 'type'],
      ['type=card.*', 'type'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['startingAfter=42', 'startingAfter'],
    ]) {
      const refused = await request(testApp.app).get(`/v1/events?${query}`).set(testApp.as(location)).expect(400);
      expect(refused.body.fieldName).toBe(fieldName);
    }
  });

  it("never shows another location's events", async () => {
    const mine = newLocation();
    const theirs = newLocation();
    await createCustomer(testApp, theirs);
    const [theirEvent] = await eventsOf(theirs);
    expect(await eventsOf(mine)).toEqual([]);
    await request(testApp.app).get(`/v1/events/${theirEvent?.id}`).set(testApp.as(mine)).expect(404);
  });
});
