import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/** Cards over their lifetime: renewed by the vault, and found when they are about to expire. */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const card = (lastFour: string, month: string, year: string, extra: Record<string, unknown> = {}) =>
  cardInput({ card: { type: 'visa', lastFour, expiry: { month, year } }, ...extra });

describe('PATCH /v1/customers/{id}/payment-methods/{paymentMethodId}', () => {
  it('renews a card in place: same id, its defaults kept, the new expiry, last four and fingerprint, and an event with what they were', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const saved = await saveCard(testApp, location, customer.id, card('4242', '03', '2030', { fingerprint: 'fp-old' }));
    await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
      .set(testApp.as(location))
      .send({ paymentMethodId: saved.id, contextName: 'web' })
      .expect(200);

    const renewed = await request(testApp.app)
      .patch(`/v1/customers/${customer.id}/payment-methods/${saved.id}`)
      .set(testApp.as(location))
      .send({ card: { lastFour: '1881', expiry: { month: '9', year: '33' } }, fingerprint: 'fp-new' })
      .expect(200);
    expect(renewed.body).toEqual({
      ...saved,
      lastFour: '1881',
      month: '09',
      year: '2033',
      card: { ...saved.card, lastFour: '1881', expiry: { month: '09', year: '2033' } },
    });
    const defaultNow = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods/defaults/web`).set(testApp.as(location)).expect(200);
    expect(defaultNow.body.paymentMethodId).toBe(saved.id);
    // Saving the renewed card again (its new fingerprint) finds it rather than adding a card.
    await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(card('1881', '09', '2033', { fingerprint: 'fp-new' }))
      .expect(200);

    const events = (await request(testApp.app).get(`/v1/customers/${customer.id}/events?type=payment_method.updated`).set(testApp.as(location)).expect(200))
      .body.events;
    expect(events.map(({ data }: { data: unknown }) => data)).toEqual([
      {
        object: renewed.body,
        previous: { lastFour: '4242', month: '03', year: '2030', card: { lastFour: '4242', expiry: { month: '03', year: '2030' } } },
      },
    ]);
  });

  it('renews with the expiry alone (its fingerprint and brand may be sent as they are): one event; the same expiry again records none', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const saved = await saveCard(testApp, location, customer.id, card('4242', '03', '2030', { fingerprint: 'fp-same' }));
    const patch = (body: object) => request(testApp.app).patch(`/v1/customers/${customer.id}/payment-methods/${saved.id}`).set(testApp.as(location)).send(body);
    await patch({ card: { expiry: { month: '07', year: '2032' } } }).expect(200);
    const again = await patch({ card: { type: 'visa', expiry: { month: '07', year: '2032' } }, fingerprint: 'fp-same' }).expect(200);
    expect(again.body).toMatchObject({ id: saved.id, lastFour: '4242', month: '07', year: '2032' });
    const events = (await request(testApp.app).get(`/v1/customers/${customer.id}/events?type=payment_method.updated`).set(testApp.as(location)).expect(200))
      .body.events;
    expect(events.map(({ data }: { data: unknown }) => data)).toEqual([
      { object: again.body, previous: { month: '03', year: '2030', card: { expiry: { month: '03', year: '2030' } } } },
    ]);
  });

  it("ten renewals racing: each answered 200, and the events chain from the first expiry to the card's last, each previous what the one before left", async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const saved = await saveCard(testApp, location, customer.id, card('4242', '03', '2030'));
    const months = Array.from({ length: 10 }, (_, index) => String(index + 1).padStart(2, '0'));
    const answers = await Promise.all(
      months.map((month) =>
        request(testApp.app)
          .patch(`/v1/customers/${customer.id}/payment-methods/${saved.id}`)
          .set(testApp.as(location))
          .send({ card: { expiry: { month, year: '2031' } } }),
      ),
    );
    expect(answers.map(({ status }) => status)).toEqual(Array(10).fill(200));
    const events = (await request(testApp.app).get(`/v1/customers/${customer.id}/events?type=payment_method.updated`).set(testApp.as(location)).expect(200))
      .body.events as Array<{ data: { object: { month: string; year: string }; previous: { month: string; year: string } } }>;
    expect(events).toHaveLength(10);
    const after = new Map(events.map(({ data }) => [`${data.previous.month}/${data.previous.year}`, `${data.object.month}/${data.object.year}`]));
    let expiry = '03/2030';
    for (let step = 0; step < 10; step += 1) expiry = after.get(expiry) ?? 'a broken chain';
    const cards = (await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(location)).expect(200)).body.paymentMethods;
    expect(expiry).toBe(`${cards[0].month}/${cards[0].year}`);
  });

  it('refuses another brand, a fingerprint another card holds, bad fields, and cards not the customer\u2019s, changing nothing', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const mine = await saveCard(testApp, location, customer.id, card('4242', '03', '2030', { fingerprint: 'fp-1' }));
    await saveCard(testApp, location, customer.id, card('0005', '04', '2031', { fingerprint: 'fp-2' }));
    const patch = (body: object, path = `/v1/customers/${customer.id}/payment-methods/${mine.id}`) =>
      request(testApp.app).patch(path).set(testApp.as(location)).send(body);

    expect((await patch({ card: { type: 'amex' } }).expect(400)).body.fieldName).toBe('card.type');
    expect((await patch({ fingerprint: 'fp-2' }).expect(409)).body).toMatchObject({ code: 3007, fieldName: 'fingerprint' });
    expect((await patch({ card: { expiry: { month: '01', year: '2001' } } }).expect(400)).body.fieldName).toBe('card.expiry');
    expect((await patch({ card: { lastFour: '42' } }).expect(400)).body.fieldName).toBe('card.lastFour');
    expect((await patch({ card: { number: '4242424242424242' } }).expect(400)).status).toBe(400);

    const other = await createCustomer(testApp, location);
    expect((await patch({ card: { lastFour: '1111' } }, `/v1/customers/${other.id}/payment-methods/${mine.id}`).expect(404)).body.messageKey).toBe(
      'PAYMENT_METHOD_NOT_OWNED',
    );
    await patch({}, `/v1/customers/${customer.id}/payment-methods/019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9`).expect(404);
    await request(testApp.app).patch(`/v1/customers/${customer.id}/payment-methods/${mine.id}`).set(testApp.as(newLocation())).send({}).expect(404);

    const cards = (await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(location)).expect(200)).body.paymentMethods;
    expect(cards[0]).toEqual(mine);
  });
});

describe('GET /v1/customers/{id}/payment-methods?expiringBefore=YYYY-MM', () => {
  it('answers only the cards whose expiry month is before it, in the spec\u2019s shape', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const soon = await saveCard(testApp, location, customer.id, card('1111', '12', '2029'));
    const later = await saveCard(testApp, location, customer.id, card('2222', '01', '2030'));
    const list = (query: string) => request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods${query}`).set(testApp.as(location));

    expect((await list('?expiringBefore=2030-01').expect(200)).body).toEqual({ results: 1, paymentMethods: [soon] });
    expect((await list('?expiringBefore=2030-02').expect(200)).body).toEqual({ results: 2, paymentMethods: [soon, later] });
    expect((await list('?expiringBefore=2029-12').expect(200)).body).toEqual({ results: 0, paymentMethods: [] });
    for (const bad of ['2030-13', '2030-1', 'soon']) expect((await list(`?expiringBefore=${bad}`).expect(400)).body.fieldName).toBe('expiringBefore');
  });
});
