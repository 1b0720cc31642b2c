import request from 'supertest';
import { buildOpenApiDocument } from '../../../src/docs/openapi-document';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const nextYear = String(new Date().getUTCFullYear() + 1);

async function customerAt(location = newLocation()) {
  return { location, customer: await createCustomer(testApp, location) };
}

describe('POST /v1/customers/{id}/payment-methods', () => {
  it('saves a card and answers 201 with PaymentMethodData', async () => {
    const { location, customer } = await customerAt();
    const response = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send({ type: 'CARD', card: { type: 'Visa', lastFour: '4242', expiry: { month: '7', year: nextYear } } })
      .expect(201);
    expect(response.body).toEqual({
      id: expect.any(String),
      type: 'CARD',
      cardType: 'Visa',
      lastFour: '4242',
      month: '07',
      year: nextYear,
      card: { lastFour: '4242', expiry: { month: '07', year: nextYear }, type: 'VISA' },
      lastUsedAt: null,
    });
  });

  it.each([
    ['mastercard', 'Mastercard', 'MASTERCARD'],
    ['American Express', 'Amex', 'AMERICAN EXPRESS'],
    ['jcb', 'JCB', 'JCB'],
    ['diners_club', 'Diners', 'DINERS_CLUB'],
    ['UnionPay', 'Unknown', 'UNIONPAY'],
  ])('maps the brand %s to cardType %s and keeps it upper-cased as %s', async (brand, cardType, kept) => {
    const { location, customer } = await customerAt();
    const card = await saveCard(
      testApp,
      location,
      customer.id,
      cardInput({ card: { type: brand, lastFour: '0005', expiry: { month: '12', year: nextYear } } }),
    );
    expect(card.cardType).toBe(cardType);
    expect(card.card.type).toBe(kept);
  });

  it('refuses an unknown field inside the card, naming it by its path, and saves nothing', async () => {
    const { location, customer } = await customerAt();
    const response = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send({ type: 'CARD', card: { type: 'Visa', lastFour: '4242', expiry: { month: '7', year: nextYear, Day: '01' } } })
      .expect(400);
    expect(response.body).toMatchObject({ code: 1000, messageKey: 'VALIDATION_FAILED', fieldName: 'card.expiry.Day' });
    const stored = await testApp.db.knex('payment_methods').where({ location_id: location }).count<{ count: string }[]>('* as count');
    expect(Number(stored[0]?.count)).toBe(0);
  });

  it('reads a two-digit year as 20YY', async () => {
    const { location, customer } = await customerAt();
    const card = await saveCard(
      testApp,
      location,
      customer.id,
      cardInput({ card: { type: 'visa', lastFour: '1111', expiry: { month: '01', year: nextYear.slice(2) } } }),
    );
    expect(card.year).toBe(nextYear);
    expect(card.card.expiry.year).toBe(nextYear);
  });

  it('updates the card saved with the same fingerprint and answers 200 instead of duplicating it', async () => {
    const { location, customer } = await customerAt();
    const first = await saveCard(testApp, location, customer.id, cardInput({ fingerprint: 'fp_abc' }));
    const laterYear = String(Number(nextYear) + 3);
    const again = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(cardInput({ fingerprint: 'fp_abc', card: { type: 'visa', lastFour: '4242', expiry: { month: '09', year: laterYear } } }))
      .expect(200);
    expect(again.body).toMatchObject({ id: first.id, month: '09', year: laterYear });

    const list = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(location));
    expect(list.body.results).toBe(1);
  });

  it('keeps the same fingerprint apart on two customers', async () => {
    const { location, customer } = await customerAt();
    const other = await createCustomer(testApp, location);
    const first = await saveCard(testApp, location, customer.id, cardInput({ fingerprint: 'fp_shared' }));
    const second = await saveCard(testApp, location, other.id, cardInput({ fingerprint: 'fp_shared' }));
    expect(second.id).not.toBe(first.id);
  });

  it.each([
    ['type', { type: 'BANK_ACCOUNT' }],
    ['card.lastFour', { card: { type: 'visa', lastFour: '42', expiry: { month: '01', year: nextYear } } }],
    ['card.expiry.month', { card: { type: 'visa', lastFour: '4242', expiry: { month: '13', year: nextYear } } }],
    ['card.expiry.month', { card: { type: 'visa', lastFour: '4242', expiry: { month: '00', year: nextYear } } }],
    ['card.expiry.year', { card: { type: 'visa', lastFour: '4242', expiry: { month: '01', year: '999' } } }],
    ['card.expiry.year', { card: { type: 'visa', lastFour: '4242', expiry: { month: '01', year: '2999' } } }],
    ['card.expiry', { card: { type: 'visa', lastFour: '4242', expiry: { month: '01', year: '2001' } } }],
    ['card.type', { card: { type: '', lastFour: '4242', expiry: { month: '01', year: nextYear } } }],
    ['card.type', { card: { type: 'v\u0000isa', lastFour: '4242', expiry: { month: '01', year: nextYear } } }],
    ['fingerprint', { fingerprint: 'f'.repeat(256) }],
  ])('refuses a bad %s with 400 naming it and saves nothing', async (fieldName, overrides) => {
    const { location, customer } = await customerAt();
    const response = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(cardInput(overrides))
      .expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1000, messageKey: 'VALIDATION_FAILED', fieldName });
    const count = await testApp.db.knex('payment_methods').where({ location_id: location }).count<{ count: string }[]>('* as count');
    expect(Number(count[0]?.count)).toBe(0);
  });

  it('answers 415 for a body that is not declared JSON', async () => {
    const { location, customer } = await customerAt();
    const response = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(cardInput()))
      .expect(415);
    expect(response.body).toMatchObject({ status: 415, code: 1006, messageKey: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers 404 for an unknown customer', async () => {
    const response = await request(testApp.app)
      .post('/v1/customers/0190a6e4-0000-7000-8000-000000000001/payment-methods')
      .set(testApp.as(newLocation()))
      .send(cardInput())
      .expect(404);
    expect(response.body).toMatchObject({ status: 404, code: 2001, messageKey: 'CUSTOMER_NOT_FOUND' });
  });
});

describe('GET /v1/customers/{id}/payment-methods', () => {
  it('lists the cards oldest first with results equal to the count', async () => {
    const { location, customer } = await customerAt();
    const first = await saveCard(testApp, location, customer.id);
    const second = await saveCard(
      testApp,
      location,
      customer.id,
      cardInput({ card: { type: 'amex', lastFour: '0005', expiry: { month: '02', year: nextYear } } }),
    );
    const response = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(location)).expect(200);
    expect(response.body).toEqual({ results: 2, paymentMethods: [first, second] });
  });

  it('answers an empty list for a customer without cards', async () => {
    const { location, customer } = await customerAt();
    const response = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(location)).expect(200);
    expect(response.body).toEqual({ results: 0, paymentMethods: [] });
  });

  it('answers 404 CUSTOMER_NOT_FOUND for an unknown customer and 400 for a non-UUID id', async () => {
    const location = newLocation();
    const missing = await request(testApp.app).get('/v1/customers/0190a6e4-0000-7000-8000-000000000002/payment-methods').set(testApp.as(location)).expect(404);
    expect(missing.body).toMatchObject({ status: 404, code: 2001, messageKey: 'CUSTOMER_NOT_FOUND' });
    const bad = await request(testApp.app).get('/v1/customers/123/payment-methods').set(testApp.as(location)).expect(400);
    expect(bad.body).toMatchObject({ fieldName: 'id' });
  });
});

describe('DELETE /v1/customers/{id}/payment-methods/{paymentMethodId}', () => {
  it('removes the card and every default bound to it, answering 204', async () => {
    const { location, customer } = await customerAt();
    const card = await saveCard(testApp, location, customer.id);
    const kept = await saveCard(
      testApp,
      location,
      customer.id,
      cardInput({ card: { type: 'visa', lastFour: '1881', expiry: { month: '02', year: nextYear } } }),
    );
    for (const contextName of ['web-checkout', 'subscription']) {
      await request(testApp.app)
        .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
        .set(testApp.as(location))
        .send({ paymentMethodId: card.id, contextName })
        .expect(200);
    }
    await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
      .set(testApp.as(location))
      .send({ paymentMethodId: kept.id, contextName: 'kiosk' })
      .expect(200);

    const deleted = await request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/${card.id}`).set(testApp.as(location));
    expect(deleted.body).toEqual({});
    expect(deleted.status).toBe(204);

    const list = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(location));
    expect(list.body).toEqual({ results: 1, paymentMethods: [kept] });
    for (const contextName of ['web-checkout', 'subscription']) {
      const gone = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods/defaults/${contextName}`).set(testApp.as(location)).expect(404);
      expect(gone.body).toMatchObject({ code: 2004, messageKey: 'DEFAULT_PAYMENT_METHOD_NOT_SET' });
    }
    await request(testApp.app)
      .get(`/v1/customers/${customer.id}/payment-methods/defaults/kiosk`)
      .set(testApp.as(location))
      .expect(200, { paymentMethodId: kept.id, contextName: 'kiosk' });
  });

  it("answers 404 for an unknown card and for another customer's card, deleting nothing", async () => {
    const { location, customer } = await customerAt();
    const other = await createCustomer(testApp, location);
    const othersCard = await saveCard(testApp, location, other.id);

    const unknown = await request(testApp.app)
      .delete(`/v1/customers/${customer.id}/payment-methods/0190a6e4-0000-7000-8000-000000000003`)
      .set(testApp.as(location))
      .expect(404);
    expect(unknown.body).toMatchObject({ code: 2002, messageKey: 'PAYMENT_METHOD_NOT_FOUND' });
    const notOwned = await request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/${othersCard.id}`).set(testApp.as(location)).expect(404);
    expect(notOwned.body).toMatchObject({ code: 2003, messageKey: 'PAYMENT_METHOD_NOT_OWNED' });

    const list = await request(testApp.app).get(`/v1/customers/${other.id}/payment-methods`).set(testApp.as(location));
    expect(list.body.results).toBe(1);
  });

  it('answers 400 naming paymentMethodId when it is not a UUID', async () => {
    const { location, customer } = await customerAt();
    const response = await request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/nope`).set(testApp.as(location)).expect(400);
    expect(response.body.fieldName).toBe('paymentMethodId');
  });
});

describe('the most cards a customer may hold (MAX_CARDS_PER_CUSTOMER)', () => {
  let capped: TestApp;
  beforeAll(async () => {
    capped = await startTestApp({ maxCardsPerCustomer: 3 });
  });
  afterAll(() => capped.close());

  const card = (fingerprint: string) => cardInput({ fingerprint });
  const cardsOf = async (location: string) =>
    Number((await capped.db.knex('payment_methods').where({ location_id: location }).count<{ count: string }[]>('* as count'))[0]?.count);

  it('answers 409 CARD_LIMIT_REACHED for one card more, saving nothing; updating a saved card and saving after a removal still work', async () => {
    const location = newLocation();
    const customer = await createCustomer(capped, location);
    const saved = [];
    for (const fingerprint of ['fp-1', 'fp-2', 'fp-3']) saved.push(await saveCard(capped, location, customer.id, card(fingerprint)));

    const refused = await request(capped.app).post(`/v1/customers/${customer.id}/payment-methods`).set(capped.as(location)).send(card('fp-4')).expect(409);
    expect(refused.body).toMatchObject({ status: 409, code: 3004, messageKey: 'CARD_LIMIT_REACHED' });
    expect(refused.body.message).toContain('3 saved cards');
    expect(await cardsOf(location)).toBe(3);

    // The vault renewing a saved card is an update, not a fourth card.
    await request(capped.app).post(`/v1/customers/${customer.id}/payment-methods`).set(capped.as(location)).send(card('fp-2')).expect(200);

    await request(capped.app).delete(`/v1/customers/${customer.id}/payment-methods/${saved[0]?.id}`).set(capped.as(location)).expect(204);
    await request(capped.app).post(`/v1/customers/${customer.id}/payment-methods`).set(capped.as(location)).send(card('fp-4')).expect(201);
    expect(await cardsOf(location)).toBe(3);
  });

  it('lets no more than the limit through when saves race', async () => {
    const location = newLocation();
    const customer = await createCustomer(capped, location);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        request(capped.app)
          .post(`/v1/customers/${customer.id}/payment-methods`)
          .set(capped.as(location))
          .send(card(`race-${index}`)),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(3).fill(201), ...Array(9).fill(409)]);
    expect(await cardsOf(location)).toBe(3);
  });

  it('is 50 by default, as the document declares', () => {
    const schema = buildOpenApiDocument().components?.schemas?.CustomerPaymentMethodsResponse as { properties: { paymentMethods: { maxItems: number } } };
    expect(schema.properties.paymentMethods.maxItems).toBe(50);
  });
});
