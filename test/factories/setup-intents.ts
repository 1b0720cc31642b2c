import request from 'supertest';
import { SCOPE } from '../../src/auth/scopes';
import type { SetupIntent } from '../../src/setup-intents/setup-intents.schemas';
import { LOCATION_HEADER } from './locations';
import type { TestApp } from '../support/test-app';

export function postSetupIntent(testApp: TestApp, location: string, body: Record<string, unknown>): request.Test {
  return request(testApp.app).post('/v1/setup-intents').set(testApp.as(location)).send(body);
}

/** A setup intent for the customer, in REQUIRES_PAYMENT_METHOD (ON_SESSION unless the body says otherwise). */
export async function createSetupIntent(testApp: TestApp, location: string, customerId: string, body: Record<string, unknown> = {}): Promise<SetupIntent> {
  return (await postSetupIntent(testApp, location, { customerId, ...body }).expect(201)).body as SetupIntent;
}

/** Headers of the browser side: the read scope only, and the setup intent's own secret when given. */
export async function browserHeaders(testApp: TestApp, location: string, secret?: string): Promise<Record<string, string>> {
  const token = await testApp.tokenFor({ scopes: [SCOPE.integrationRead], locations: [location] });
  return { Authorization: `Bearer ${token}`, [LOCATION_HEADER]: location, ...(secret === undefined ? {} : { 'Platform-Session-Secret': secret }) };
}

/** Confirms with the server's token, or with `headers` (the browser's). */
export function confirmSetup(testApp: TestApp, location: string, id: string, card: Record<string, unknown>, headers?: Record<string, string>): request.Test {
  return request(testApp.app)
    .post(`/v1/setup-intents/${id}/confirm`)
    .set(headers ?? testApp.as(location))
    .send(card);
}
