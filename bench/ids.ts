import { createHash } from 'node:crypto';

/**
 * The seeded data's identifiers, computed the same way in SQL (seed.ts) and
 * here, so the load generator can pick any customer at random without
 * reading a million ids back: an md5 shaped into a version-4 UUID.
 */
export const DEFAULT_LOCATION_COUNT = 20;
let locations = DEFAULT_LOCATION_COUNT;

/** The locations customer n is spread over (n modulo it): 20, or what a --growth run sets. */
export function locationCount(): number {
  return locations;
}

/** Spreads the seed over `count` locations from now on: call it before seeding, never between a seed and its load. */
export function useLocationCount(count: number): void {
  locations = count;
}
export const CARDS_PER_CUSTOMER = 3;
/** The two integration contexts every customer has a default on. */
export const CONTEXTS = ['online-ordering', 'kiosk'] as const;

/** SQL for the UUID of a seed name; `name` is an SQL text expression. */
export function sqlSeedUuid(name: string): string {
  return `overlay(overlay(md5(${name}) placing '4' from 13) placing '8' from 17)::uuid`;
}

export function seedUuid(name: string): string {
  const hex = createHash('md5').update(name).digest('hex');
  const shaped = `${hex.slice(0, 12)}4${hex.slice(13, 16)}8${hex.slice(17)}`;
  return `${shaped.slice(0, 8)}-${shaped.slice(8, 12)}-${shaped.slice(12, 16)}-${shaped.slice(16, 20)}-${shaped.slice(20)}`;
}

/** Customer n (1-based) and what was seeded for it. */
export interface SeededCustomer {
  locationId: string;
  id: string;
  cardIds: string[];
  intentId: string;
}

export function locationOfCustomer(n: number): string {
  return `bench-location-${n % locations}`;
}

export function seededCustomer(n: number): SeededCustomer {
  return {
    locationId: locationOfCustomer(n),
    id: seedUuid(`customer-${n}`),
    cardIds: Array.from({ length: CARDS_PER_CUSTOMER }, (_, card) => seedUuid(`card-${n}-${card}`)),
    intentId: seedUuid(`intent-${n}`),
  };
}
