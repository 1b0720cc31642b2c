import { randomInt, randomUUID } from 'node:crypto';
import { CONTEXTS, CARDS_PER_CUSTOMER, LOCATION_COUNT, seededCustomer } from './ids';
import type { LoadRequest } from './load';

export const SCENARIOS = [
  { id: 1, name: 'GET payment-methods' },
  { id: 2, name: 'GET default' },
  { id: 3, name: 'POST default (upsert)' },
  { id: 4, name: 'POST customer' },
  { id: 5, name: 'GET payment intent' },
  { id: 6, name: 'mix 80% reads / 20% writes' },
] as const;

export type ScenarioId = (typeof SCENARIOS)[number]['id'];

const LOCATION_HEADER = 'Platform-Restaurant-External-ID';

/** Draws the requests of each scenario for random seeded customers (1..customers). */
export function scenarioRequests(customers: number, token: string): Record<ScenarioId, () => LoadRequest> {
  const headers = (locationId: string, json = false): Record<string, string> => ({
    Authorization: `Bearer ${token}`,
    [LOCATION_HEADER]: locationId,
    ...(json ? { 'Content-Type': 'application/json' } : {}),
  });
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
    headers: headers(`bench-location-${randomInt(LOCATION_COUNT)}`, true),
    body: JSON.stringify({ externalReferenceId: `bench-${randomUUID()}`, description: 'created by the benchmark' }),
  });
  const getIntent = (): LoadRequest => {
    const customer = anyCustomer();
    return { method: 'GET', path: `/v1/payment-intents/${customer.intentId}`, headers: headers(customer.locationId) };
  };
  const reads = [listCards, getDefault, getIntent];
  const writes = [setDefault, createCustomer];
  const mix = (): LoadRequest => (randomInt(100) < 80 ? pick(reads)() : pick(writes)());

  return { 1: listCards, 2: getDefault, 3: setDefault, 4: createCustomer, 5: getIntent, 6: mix };
}
