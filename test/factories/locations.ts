import { randomUUID } from 'node:crypto';

export const LOCATION_HEADER = 'Platform-Restaurant-External-ID';

/** A location no other test uses, so tests share a database without seeing each other's rows. */
export function newLocation(): string {
  return `loc-${randomUUID()}`;
}
