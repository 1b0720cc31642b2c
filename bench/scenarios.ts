import { randomInt, randomUUID } from 'node:crypto';
import { CONTEXTS, CARDS_PER_CUSTOMER, locationCount, seededCustomer } from './ids';
import type { Consumable } from './consumables';
import type { LoadRequest } from './load';

export const SCENARIOS = [
  { id: 1, name: 'GET payment-methods' },
  { id: 2, name: 'GET default' },
  { id: 3, name: 'POST default (upsert)' },
  { id: 4, name: 'POST customer' },
  { id: 5, name: 'GET payment intent' },
  { id: 6, name: 'mix 80% reads / 20% writes' },
  { id: 7, name: 'PATCH card (renewal)' },
  { id: 8, name: 'POST webhook endpoint' },
  { id: 9, name: 'DELETE customer (erasure)', consumes: 'customers' },
  { id: 10, name: 'POST confirm', consumes: 'intents' },
  { id: 11, name: 'POST capture', consumes: 'authorized intents' },
  { id: 12, name: 'POST refund', consumes: 'paid intents' },
] as const satisfies ReadonlyArray<{ id: number; name: string; consumes?: Consumable }>;

export type ScenarioId = (typeof SCENARIOS)[number]['id'];
/** The scenarios that use a row up per request, and what they use: they draw from a range seeded for each turn (consumables.ts). */
export type ConsumingScenarioId = Extract<(typeof SCENARIOS)[number], { consumes: Consumable }>['id'];

/** The host of the endpoints scenario 8 creates, so the bench can remove them between turns. */
export const BENCH_ENDPOINT_HOST = 'hooks.bench.example.com';

const LOCATION_HEADER = 'Platform-Restaurant-External-ID';

function headersOf(token: string) {
  return (locationId: string, json = false): Record<string, string> => ({
    Authorization: `Bearer ${token}`,
    [LOCATION_HEADER]: locationId,
    ...(json ? { 'Content-Type': 'application/json' } : {}),
  });
}

/** Draws the requests of each scenario for random seeded customers (1..customers). */
export function scenarioRequests(customers: number, token: string): Record<Exclude<ScenarioId, ConsumingScenarioId>, () => LoadRequest> {
  const headers = headersOf(token);
  const anyCustomer = () => seededCustomer(randomInt(1, customers + 1));
  const pick = <T>(values: readonly T[]): T => values[randomInt(values.length)] as T;

  const listCards = (): LoadRequest => {
    const customer = anyCustomer();
    return { method: 'GET', path: `/v1/customers/${customer.id}/payment-methods`, headers: headers(customer.locationId) };
  };
  const getDefault = (): LoadRequest => {
    const customer = anyCustomer();
    return {
      method: 'GET',
      path: `/v1/customers/${customer.id}/payment-methods/defaults/${pick(CONTEXTS)}`,
      headers: headers(customer.locationId),
    };
  };
  const setDefault = (): LoadRequest => {
    const customer = anyCustomer();
    return {
      method: 'POST',
      path: `/v1/customers/${customer.id}/payment-methods/defaults`,
      headers: headers(customer.locationId, true),
      body: JSON.stringify({ paymentMethodId: customer.cardIds[randomInt(CARDS_PER_CUSTOMER)], contextName: pick(CONTEXTS) }),
    };
  };
  const createCustomer = (): LoadRequest => ({
    method: 'POST',
    path: '/v1/customers',
    headers: headers(`bench-location-${randomInt(locationCount())}`, true),
    body: JSON.stringify({ externalReferenceId: `bench-${randomUUID()}`, description: 'created by the benchmark' }),
  });
  const getIntent = (): LoadRequest => {
    const customer = anyCustomer();
    return { method: 'GET', path: `/v1/payment-intents/${customer.intentId}`, headers: headers(customer.locationId) };
  };
  const renewCard = (): LoadRequest => {
    const customer = anyCustomer();
    const month = String(randomInt(1, 13)).padStart(2, '0');
    return {
      method: 'PATCH',
      path: `/v1/customers/${customer.id}/payment-methods/${customer.cardIds[randomInt(CARDS_PER_CUSTOMER)]}`,
      headers: headers(customer.locationId, true),
      body: JSON.stringify({ card: { expiry: { month, year: String(2030 + randomInt(5)) } } }),
    };
  };
  // Subscribed to a type no scenario emits: the dispatcher has nothing to send them. Each at a location of
  // its own: a location holds at most WEBHOOK_MAX_ENDPOINTS_PER_LOCATION, and the turn makes thousands.
  const createEndpoint = (): LoadRequest => ({
    method: 'POST',
    path: '/v1/webhook-endpoints',
    headers: headers(`bench-endpoints-${randomUUID()}`, true),
    body: JSON.stringify({
      url: `https://${BENCH_ENDPOINT_HOST}/${randomUUID()}`,
      enabledEvents: ['payment_intent.updated'],
      description: 'created by the benchmark',
    }),
  });
  const reads = [listCards, getDefault, getIntent];
  const writes = [setDefault, createCustomer];
  const mix = (): LoadRequest => (randomInt(100) < 80 ? pick(reads)() : pick(writes)());

  return { 1: listCards, 2: getDefault, 3: setDefault, 4: createCustomer, 5: getIntent, 6: mix, 7: renewCard, 8: createEndpoint };
}

/**
 * Draws a consuming scenario's requests from customers from..to, in order,
 * one each: erase customer n, confirm its intent with its first card, capture
 * its authorized intent, refund all of its paid intent. Past `to` the last one is asked again, and answers
 * 404 or 409: a range too small shows as a failed bench, never as a faster one.
 */
export function consumingRequests(scenario: ConsumingScenarioId, from: number, to: number, token: string): () => LoadRequest {
  const headers = headersOf(token);
  let next = from;
  return () => {
    const customer = seededCustomer(Math.min(next, to));
    next += 1;
    switch (scenario) {
      case 9:
        return { method: 'DELETE', path: `/v1/customers/${customer.id}`, headers: headers(customer.locationId) };
      case 10:
        return {
          method: 'POST',
          path: `/v1/payment-intents/${customer.intentId}/confirm`,
          headers: headers(customer.locationId, true),
          body: JSON.stringify({ paymentMethodId: customer.cardIds[0] }),
        };
      case 11:
        return { method: 'POST', path: `/v1/payment-intents/${customer.intentId}/capture`, headers: headers(customer.locationId, true), body: '{}' };
      case 12:
        return { method: 'POST', path: `/v1/payment-intents/${customer.intentId}/refunds`, headers: headers(customer.locationId, true), body: '{}' };
    }
  };
}
