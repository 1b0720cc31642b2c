import request from 'supertest';
import type { PaymentIntent } from '../../src/payment-intents/payment-intents.schemas';
import type { TestApp } from '../support/test-app';
import { cardInput, createCustomer, saveCard } from './customers';

export interface Checkout {
  customerId: string;
  cardId: string;
  intent: PaymentIntent;
}

/**
 * A customer with one saved card ending in `lastFour` (the sandbox decides by
 * it) and an intent for them, not yet confirmed.
 */
export async function checkoutWith(
  testApp: TestApp,
  location: string,
  options: { lastFour?: string; cardType?: string; captureMethod?: 'MANUAL' | 'AUTOMATIC'; amount?: number; externalReferenceId?: string } = {},
): Promise<Checkout> {
  const customerId = (await createCustomer(testApp, location)).id;
  const base = cardInput() as { card: Record<string, unknown> };
  const card = await saveCard(testApp, location, customerId, {
    ...base,
    card: { ...base.card, lastFour: options.lastFour ?? '4242', ...(options.cardType === undefined ? {} : { type: options.cardType }) },
  });
  const intent = await request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({
      amount: options.amount ?? 1250,
      currency: 'USD',
      externalReferenceId: options.externalReferenceId ?? `order-${card.id.slice(-6)}`,
      customerId,
      captureMethod: options.captureMethod ?? 'MANUAL',
    })
    .expect(201);
  return { customerId, cardId: card.id, intent: intent.body as PaymentIntent };
}

export function confirm(testApp: TestApp, location: string, intentId: string, body: object = {}): request.Test {
  return request(testApp.app).post(`/v1/payment-intents/${intentId}/confirm`).set(testApp.as(location)).send(body);
}

export function capture(testApp: TestApp, location: string, intentId: string, body: object = {}): request.Test {
  return request(testApp.app).post(`/v1/payment-intents/${intentId}/capture`).set(testApp.as(location)).send(body);
}

export function cancel(testApp: TestApp, location: string, intentId: string, body: object = {}): request.Test {
  return request(testApp.app).post(`/v1/payment-intents/${intentId}/cancel`).set(testApp.as(location)).send(body);
}

/** A SUCCEEDED intent (AUTOMATIC: authorized and captured at once) paid with a card ending in `lastFour`. */
export async function paidIntent(
  testApp: TestApp,
  location: string,
  options: { lastFour?: string; cardType?: string; amount?: number } = {},
): Promise<Checkout> {
  const checkout = await checkoutWith(testApp, location, { ...options, captureMethod: 'AUTOMATIC' });
  const paid = await confirm(testApp, location, checkout.intent.id, { paymentMethodId: checkout.cardId }).expect(200);
  if (paid.body.status !== 'SUCCEEDED') throw new Error(`the intent is ${paid.body.status}, not SUCCEEDED`);
  return { ...checkout, intent: paid.body as PaymentIntent };
}

export function refund(testApp: TestApp, location: string, intentId: string, body: object = {}, idempotencyKey?: string): request.Test {
  const call = request(testApp.app).post(`/v1/payment-intents/${intentId}/refunds`).set(testApp.as(location));
  return (idempotencyKey === undefined ? call : call.set('Idempotency-Key', idempotencyKey)).send(body);
}

/** The intent's events, oldest first: type and `previous`. */
export async function intentEvents(
  testApp: TestApp,
  location: string,
  intentId: string,
): Promise<Array<{ type: string; previous: unknown; object: Record<string, unknown> }>> {
  const rows = (await testApp.db
    .knex('events')
    .select('type', 'data')
    .where({ location_id: location })
    .whereRaw("data->'object'->>'id' = ?", [intentId])
    .orderBy('id')) as Array<{ type: string; data: { previous: unknown; object: Record<string, unknown> } }>;
  return rows.map(({ type, data }) => ({ type, previous: data.previous, object: data.object }));
}

/** What the sandbox processor holds for the intent: one row per idempotency key it answered. */
export async function sandboxOperations(
  testApp: TestApp,
  location: string,
  intentId: string,
): Promise<Array<{ operation: string; idempotency_key: string; state: string | null }>> {
  return (await testApp.db
    .knex('sandbox_processor_operations')
    .select('operation', 'idempotency_key', 'state')
    .where({ location_id: location })
    .whereLike('idempotency_key', `${intentId}:%`)
    .orderBy('created_at')) as Array<{ operation: string; idempotency_key: string; state: string | null }>;
}
