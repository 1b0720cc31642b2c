import type { Knex } from 'knex';

/**
 * Which request made a change, as its event records it: the request id (also
 * in the access log), the client that asked, and the Idempotency-Key it sent.
 * All null for a change the service makes on its own (a sweep).
 */
export interface WriteOrigin {
  requestId: string | null;
  clientId: string | null;
  idempotencyKey: string | null;
}

/** Where and by whom a write is made: what every write of a feature or a flow is given, and what its events record. */
export interface WriteContext {
  /** The claim's transaction (a request with an Idempotency-Key), or the pool: a write opens a transaction with inTransaction. */
  db: Knex;
  locationId: string;
  origin: WriteOrigin;
}

const THE_SERVICE: WriteOrigin = Object.freeze({ requestId: null, clientId: null, idempotencyKey: null });

/** A write the service makes on its own (the capture window, a recovery): no request, no client. */
export function serviceWrite(db: Knex, locationId: string): WriteContext {
  return { db, locationId, origin: THE_SERVICE };
}
