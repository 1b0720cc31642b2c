import request from 'supertest';
import type { Mandate } from '../../src/mandates/mandates.schemas';
import type { TestApp } from '../support/test-app';

/** A consent given a minute ago, online, with the personal fields an erasure clears. */
export function consentInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    acceptedAt: new Date(Date.now() - 60_000).toISOString(),
    textVersion: 'gold-plan-terms-v3',
    channel: 'ONLINE',
    ipAddress: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
    ...overrides,
  };
}

export function postMandate(testApp: TestApp, location: string, customerId: string, body: Record<string, unknown>): request.Test {
  return request(testApp.app).post(`/v1/customers/${customerId}/mandates`).set(testApp.as(location)).send(body);
}

/** An ACTIVE RECURRING mandate on the customer's card. */
export async function createMandate(
  testApp: TestApp,
  location: string,
  customerId: string,
  paymentMethodId: string,
  overrides: Record<string, unknown> = {},
): Promise<Mandate> {
  const body = { paymentMethodId, standingInstructionType: 'RECURRING', consent: consentInput(), ...overrides };
  return (await postMandate(testApp, location, customerId, body).expect(201)).body as Mandate;
}

export function revokeMandate(testApp: TestApp, location: string, customerId: string, mandateId: string): request.Test {
  return request(testApp.app).post(`/v1/customers/${customerId}/mandates/${mandateId}/revoke`).set(testApp.as(location)).send({});
}
