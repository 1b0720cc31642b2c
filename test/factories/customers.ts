import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { CustomerResponse } from '../../src/customers/customers.schemas';
import type { PaymentMethodData } from '../../src/payment-methods/payment-methods.schemas';
import type { TestApp } from '../support/test-app';

export async function createCustomer(
  testApp: TestApp,
  location: string,
  // A reference of its own: a location holds one customer per reference, and a create with a held one answers that customer.
  body: Record<string, unknown> = { externalReferenceId: `ext-${randomUUID()}`, description: 'ada@example.com' },
): Promise<CustomerResponse> {
  const response = await request(testApp.app).post('/v1/customers').set(testApp.as(location)).send(body).expect(200);
  return response.body as CustomerResponse;
}

/** A valid card-save body for a card that expires in two years. */
export function cardInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const year = String(new Date().getUTCFullYear() + 2);
  return { type: 'CARD', card: { type: 'visa', lastFour: '4242', expiry: { month: '3', year } }, ...overrides };
}

export async function saveCard(
  testApp: TestApp,
  location: string,
  customerId: string,
  body: Record<string, unknown> = cardInput(),
): Promise<PaymentMethodData> {
  const response = await request(testApp.app).post(`/v1/customers/${customerId}/payment-methods`).set(testApp.as(location)).send(body).expect(201);
  return response.body as PaymentMethodData;
}
