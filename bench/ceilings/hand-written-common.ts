/**
 * What every hand-written route shares: jose ES256 verification of the
 * bearer token, the location header, one `pg` Pool of the service's size,
 * and a transaction that writes the change's events with their outbox rows.
 * Secrets are sealed as the service seals them, and caps are held under the
 * same locks. Nothing else: no request id, log, security headers, location
 * entitlement, rate limit, validation or idempotency.
 */
import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { Pool, type PoolClient } from 'pg';
import { v7 as uuidv7 } from 'uuid';

const keys = createLocalJWKSet(JSON.parse(process.env.CEILING_JWKS ?? '{"keys":[]}') as JSONWebKeySet);
export const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX ?? 10) });

export async function verify(request: Request): Promise<void> {
  const token = (request.headers.authorization ?? '').slice('Bearer '.length);
  await jwtVerify(token, keys, { issuer: process.env.CEILING_ISSUER, audience: process.env.CEILING_AUDIENCE, algorithms: ['ES256'] });
}

export const location = (request: Request): string => String(request.headers['platform-restaurant-external-id']);

export interface HandWrittenEvent {
  type: string;
  customerId: string | null;
  data: unknown;
}

/** The events and their outbox rows, one statement per event (as a hand-written route would). */
export async function insertEvents(client: PoolClient, locationId: string, events: readonly HandWrittenEvent[]): Promise<void> {
  const requestId = randomUUID();
  for (const event of events) {
    await client.query(
      `with inserted as (
         insert into events (location_id, id, type, customer_id, request_id, idempotency_key, client_id, data)
         values ($1, $2, $3, $4, $5, null, $6, $7) returning location_id, id)
       insert into event_outbox (location_id, event_id) select location_id, id from inserted`,
      [locationId, uuidv7(), event.type, event.customerId, requestId, 'bench-client', JSON.stringify(event.data)],
    );
  }
}

/** `work` between begin and commit on one pooled connection; rolled back if it throws. */
export async function inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The change and its event (with its outbox row) in one transaction, as the
 * service writes them: what a write costs with its change log and nothing else.
 */
export async function inTransactionWithEvent<Row>(
  request: Request,
  change: (client: PoolClient) => Promise<Row | undefined>,
  event: (row: Row) => HandWrittenEvent | undefined,
): Promise<Row | undefined> {
  return inTransaction(async (client) => {
    const row = await change(client);
    const recorded = row === undefined ? undefined : event(row);
    if (recorded !== undefined) await insertEvents(client, location(request), [recorded]);
    return row;
  });
}
