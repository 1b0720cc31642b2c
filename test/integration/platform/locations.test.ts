import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

describe('the Platform-Restaurant-External-ID header', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['over 255 characters', 'l'.repeat(256)],
    ['holding a control character (tab)', 'loc\tone'],
  ])('is refused with 400 when %s, and nothing is stored', async (_case, value) => {
    const before = await testApp.db.knex('customers').count<{ count: string }[]>('* as count');
    const call = request(testApp.app).post('/v1/customers').set(testApp.adminAuthorization).send({ externalReferenceId: 'x' });
    const response = await (value === undefined ? call : call.set(LOCATION_HEADER, value)).expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1003, messageKey: 'LOCATION_HEADER_INVALID', fieldName: LOCATION_HEADER });
    const after = await testApp.db.knex('customers').count<{ count: string }[]>('* as count');
    expect(after).toEqual(before);
  });

  it('is refused with 400 when sent twice, rather than read as a joined value', async () => {
    const response = await request(testApp.app)
      .get('/v1/customers?externalReferenceId=x')
      // superagent sends an array as the header repeated; its types only allow that for Cookie.
      .set(testApp.adminAuthorization)
      .set(LOCATION_HEADER, ['loc-a', 'loc-b'] as unknown as string)
      .expect(400);
    expect(response.body).toMatchObject({ code: 1003, messageKey: 'LOCATION_HEADER_INVALID' });
  });

  it('accepts 255 characters', async () => {
    await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as('l'.repeat(255)))
      .send({})
      .expect(200);
  });

  it('is required on every /v1 operation', async () => {
    const id = '0190a6e4-0000-7000-8000-000000000000';
    const calls = [
      request(testApp.app).get(`/v1/customers/${id}`),
      request(testApp.app).get(`/v1/customers/${id}/payment-methods`),
      request(testApp.app).post(`/v1/customers/${id}/payment-methods`).send(cardInput()),
      request(testApp.app).delete(`/v1/customers/${id}/payment-methods/${id}`),
      request(testApp.app).post(`/v1/customers/${id}/payment-methods/defaults`).send({ paymentMethodId: id, contextName: 'c' }),
      request(testApp.app).get(`/v1/customers/${id}/payment-methods/defaults/c`),
      request(testApp.app).delete(`/v1/customers/${id}/payment-methods/defaults/c`),
    ];
    for (const response of await Promise.all(calls.map((call) => call.set(testApp.adminAuthorization))))
      expect(response.body).toMatchObject({ status: 400, code: 1003, messageKey: 'LOCATION_HEADER_INVALID' });
  });
});

describe('records of another location', () => {
  it('answer 404 to every read and write, exactly like records that do not exist, and stay unchanged', async () => {
    const owner = newLocation();
    const stranger = newLocation();
    const customer = await createCustomer(testApp, owner, { externalReferenceId: 'tenant-ref' });
    const card = await saveCard(testApp, owner, customer.id, cardInput({ fingerprint: 'fp-tenant' }));
    await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
      .set(testApp.as(owner))
      .send({ paymentMethodId: card.id, contextName: 'web' })
      .expect(200);

    const as = (call: request.Test) => call.set(testApp.as(stranger));
    const attempts = {
      getCustomer: as(request(testApp.app).get(`/v1/customers/${customer.id}`)),
      listCards: as(request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`)),
      saveCard: as(
        request(testApp.app)
          .post(`/v1/customers/${customer.id}/payment-methods`)
          .send(cardInput({ fingerprint: 'fp-tenant' })),
      ),
      deleteCard: as(request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/${card.id}`)),
      setDefault: as(request(testApp.app).post(`/v1/customers/${customer.id}/payment-methods/defaults`).send({ paymentMethodId: card.id, contextName: 'web' })),
      getDefault: as(request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods/defaults/web`)),
      deleteDefault: as(request(testApp.app).delete(`/v1/customers/${customer.id}/payment-methods/defaults/web`)),
    };
    for (const [name, attempt] of Object.entries(attempts)) {
      const response = await attempt;
      expect({ name, status: response.status, code: response.body.code, messageKey: response.body.messageKey }).toEqual({
        name,
        status: 404,
        code: 2001,
        messageKey: 'CUSTOMER_NOT_FOUND',
      });
    }

    const lookup = await request(testApp.app).get('/v1/customers?externalReferenceId=tenant-ref').set(testApp.as(stranger)).expect(200);
    expect(lookup.body).toEqual({ results: 0, customers: [], hasMore: false });

    // The owner still sees everything as it was.
    const list = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods`).set(testApp.as(owner)).expect(200);
    expect(list.body).toEqual({ results: 1, paymentMethods: [card] });
    await request(testApp.app)
      .get(`/v1/customers/${customer.id}/payment-methods/defaults/web`)
      .set(testApp.as(owner))
      .expect(200, { paymentMethodId: card.id, contextName: 'web' });
  });

  it("cannot bind a card of another location even to a customer of the caller's own location", async () => {
    const owner = newLocation();
    const stranger = newLocation();
    const ownersCustomer = await createCustomer(testApp, owner);
    const ownersCard = await saveCard(testApp, owner, ownersCustomer.id);
    const strangersCustomer = await createCustomer(testApp, stranger);

    const response = await request(testApp.app)
      .post(`/v1/customers/${strangersCustomer.id}/payment-methods/defaults`)
      .set(testApp.as(stranger))
      .send({ paymentMethodId: ownersCard.id, contextName: 'web' })
      .expect(404);
    // Not "belongs to another customer": that would confirm the card exists elsewhere.
    expect(response.body).toMatchObject({ code: 2002, messageKey: 'PAYMENT_METHOD_NOT_FOUND' });
  });
});
