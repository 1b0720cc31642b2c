import { randomInt } from 'node:crypto';
import { seededCustomer } from './ids';
import type { LoadRequest } from './load';

const LOCATION_HEADER = 'Platform-Restaurant-External-ID';

/** The list reads a --growth run measures besides scenarios 1, 2 and 5: a page of 10 of each, at random. */
export const LIST_READS = [
  { name: "a location's customers", path: () => '/v1/customers?limit=10' },
  { name: "a customer's intents", path: (customerId: string) => `/v1/payment-intents?limit=10&customerId=${customerId}` },
  { name: "a location's events", path: () => '/v1/events?limit=10' },
  { name: "a location's events of one type", path: () => '/v1/events?limit=10&type=payment_intent.succeeded' },
  { name: "a customer's history", path: (customerId: string) => `/v1/customers/${customerId}/events?limit=10` },
] as const;

/** Draws a list read for a random seeded customer (1..customers), at its location: the location's lists are any location's at random. */
export function listRequest(read: (typeof LIST_READS)[number], customers: number, token: string): () => LoadRequest {
  return () => {
    const customer = seededCustomer(randomInt(1, customers + 1));
    return { method: 'GET', path: read.path(customer.id), headers: { Authorization: `Bearer ${token}`, [LOCATION_HEADER]: customer.locationId } };
  };
}
