import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import type { WriteContext } from '../platform/http/request-context';
import type { EventType } from './event-types';

/** One change, as the service that made it describes it. */
export interface Change {
  type: EventType;
  customerId: string | null;
  /** The resource as the API answers it after the change (as it last was, for a removal); never a secret. */
  object: object;
  /** The changed fields before the change; null for a creation or a removal. */
  previous: object | null;
}

/**
 * The events and their outbox rows in one statement (one round trip, however
 * many changes): `jsonb_to_recordset` keeps its text constant, so it is
 * prepared once per connection.
 */
const INSERT_EVENTS = preparedStatement(
  'insert_events',
  `with inserted as (
     insert into events (location_id, id, type, customer_id, request_id, idempotency_key, client_id, data)
     select ?, e.id, e.type, e.customer_id, ?, ?, ?, e.data
       from jsonb_to_recordset(?::jsonb) as e(id uuid, type text, customer_id uuid, data jsonb)
     returning location_id, id
   )
   insert into event_outbox (location_id, event_id) select location_id, id from inserted`,
);

/**
 * Records changes in the transaction that makes them: they commit with it or
 * not at all. Call it with the transaction, never the pool.
 */
export async function recordChanges(trx: Knex.Transaction, context: Omit<WriteContext, 'db'>, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return;
  const rows = changes.map((change) => ({
    id: uuidv7(),
    type: change.type,
    customer_id: change.customerId,
    data: { object: change.object, previous: change.previous },
  }));
  const { origin } = context;
  await runPrepared(trx, INSERT_EVENTS, [context.locationId, origin.requestId, origin.idempotencyKey, origin.clientId, JSON.stringify(rows)]);
}
