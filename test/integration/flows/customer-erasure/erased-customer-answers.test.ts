import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../../../factories/customers';
import { newLocation } from '../../../factories/locations';
import { consentInput, createMandate } from '../../../factories/mandates';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * One rule for an erased customer (docs/cards-on-file.md, After an erasure):
 * every operation that names it answers as for a customer never seen,
 * 404 CUSTOMER_NOT_FOUND (with `fieldName: customerId` where a body names
 * it); what stays is the record that it was erased: its history of events,
 * and its id as a list cursor. Before, reading an erased customer's mandate
 * answered 200 while listing its mandates answered 404, and an off-session
 * intent under its revoked mandate answered 409 MANDATE_INACTIVE.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Call = (customerId: string, ids: { cardId: string; mandateId: string }) => request.Test;

const CALLS: Record<string, Call> = {
  'GET the customer': (customer) => request(t.app).get(`/v1/customers/${customer}`),
  'update the customer': (customer) => request(t.app).patch(`/v1/customers/${customer}`).send({ description: 'x' }),
  'list its cards': (customer) => request(t.app).get(`/v1/customers/${customer}/payment-methods`),
  'save a card': (customer) => request(t.app).post(`/v1/customers/${customer}/payment-methods`).send(cardInput()),
  'update its card': (customer, { cardId }) =>
    request(t.app)
      .patch(`/v1/customers/${customer}/payment-methods/${cardId}`)
      .send({ card: { expiry: { month: '4', year: String(new Date().getUTCFullYear() + 3) } } }),
  'delete its card': (customer, { cardId }) => request(t.app).delete(`/v1/customers/${customer}/payment-methods/${cardId}`),
  'set a default': (customer, { cardId }) =>
    request(t.app).post(`/v1/customers/${customer}/payment-methods/defaults`).send({ paymentMethodId: cardId, contextName: 'web' }),
  'read a default': (customer) => request(t.app).get(`/v1/customers/${customer}/payment-methods/defaults/web`),
  'list its mandates': (customer) => request(t.app).get(`/v1/customers/${customer}/mandates`),
  'read its mandate': (customer, { mandateId }) => request(t.app).get(`/v1/customers/${customer}/mandates/${mandateId}`),
  'revoke its mandate': (customer, { mandateId }) => request(t.app).post(`/v1/customers/${customer}/mandates/${mandateId}/revoke`).send({}),
  'make a mandate': (customer, { cardId }) =>
    request(t.app).post(`/v1/customers/${customer}/mandates`).send({ paymentMethodId: cardId, standingInstructionType: 'RECURRING', consent: consentInput() }),
  'create an intent for it': (customer) =>
    request(t.app).post('/v1/payment-intents').send({ amount: 1000, currency: 'USD', externalReferenceId: 'erased-1', customerId: customer }),
  'create an off-session intent under its mandate': (customer, { mandateId }) =>
    request(t.app)
      .post('/v1/payment-intents')
      .send({ amount: 1000, currency: 'USD', externalReferenceId: 'erased-2', customerId: customer, offSession: true, mandateId }),
  'erase it again': (customer) => request(t.app).delete(`/v1/customers/${customer}`),
};

/** Status, code and field, with the message left out: it may name the id. */
async function answer(call: request.Test, location: string): Promise<{ status: number; messageKey: unknown; fieldName: unknown }> {
  const response = await call.set(t.as(location));
  return { status: response.status, messageKey: response.body.messageKey, fieldName: response.body.fieldName };
}

it.each(Object.keys(CALLS))('%s: an erased customer answers as one never seen, 404 CUSTOMER_NOT_FOUND', async (name) => {
  const call = CALLS[name] as Call;
  const location = newLocation();
  const customer = await createCustomer(t, location);
  const card = await saveCard(t, location, customer.id, cardInput());
  const mandate = await createMandate(t, location, customer.id, card.id);
  await request(t.app).delete(`/v1/customers/${customer.id}`).set(t.as(location)).expect(200);

  const erased = await answer(call(customer.id, { cardId: card.id, mandateId: mandate.id }), location);
  const neverSeen = await answer(call(randomUUID(), { cardId: randomUUID(), mandateId: randomUUID() }), location);
  expect(erased).toEqual(neverSeen);
  expect(erased).toMatchObject({ status: 404, messageKey: 'CUSTOMER_NOT_FOUND' });
});

it('keeps the record of the erasure: the customer’s history ends in customer.deleted, and its id still continues a list', async () => {
  const location = newLocation();
  const customer = await createCustomer(t, location);
  await request(t.app).delete(`/v1/customers/${customer.id}`).set(t.as(location)).expect(200);
  const history = await request(t.app).get(`/v1/customers/${customer.id}/events`).set(t.as(location)).expect(200);
  expect(history.body.events[0]).toMatchObject({ type: 'customer.deleted' });
  await request(t.app).get('/v1/customers').query({ startingAfter: customer.id }).set(t.as(location)).expect(200);
  await request(t.app).get(`/v1/customers/${randomUUID()}/events`).set(t.as(location)).expect(404);
});
