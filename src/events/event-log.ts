import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import type { RequestOrigin, WriteContext } from '../platform/http/request-context';
import type { EventType } from './event-types';
import { eventsRecorded } from './events-recorded';

/** One change, as the service that made it describes it. */
export interface Change {
  type: EventType;
  customerId: string | null;
  /** The resource as the API answers it after the change (as it last was, for a removal); never a secret. */
  object: object;
  /** The changed fields before the change; null for a creation or a removal. */
  previous: object | null;
}

/** An event row's columns, as both ways of recording one insert them. */
const EVENT_COLUMNS = 'location_id, id, type, customer_id, request_id, idempotency_key, client_id, data';

/** The outbox rows of the events a CTE inserted (returning location_id, id): what the webhook fan-out takes. */
const outboxOf = (inserted: string) => `insert into event_outbox (location_id, event_id) select location_id, id from ${inserted}`;

/**
 * The events and their outbox rows in one statement (one round trip, however
 * many changes): `jsonb_to_recordset` keeps its text constant, so it is
 * prepared once per connection.
 */
const INSERT_EVENTS = preparedStatement(
  'insert_events',
  `with inserted as (
     insert into events (${EVENT_COLUMNS})
     select ?, e.id, e.type, e.customer_id, ?, ?, ?, e.data
       from jsonb_to_recordset(?::jsonb) as e(id uuid, type text, customer_id uuid, data jsonb)
     returning location_id, id
   )
   ${outboxOf('inserted')}`,
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
  eventsRecorded();
}

/**
 * For the hottest writes, the event in the change's own statement: CTEs to
 * add to a `with` whose CTE `source` returns the changed row (at most one),
 * recording its event and outbox row only if there is one and `where` holds.
 * One statement is atomic on its own, so the write needs no transaction and
 * stays one round trip. `customerId` and `data` are SQL over `source`;
 * `data` may be `?::jsonb`, then bound by eventBindings. The CTE names
 * `recorded_event` and `recorded_outbox` are taken.
 */
export function recordEventCtes(source: string, parts: { customerId: string; data: string; where?: string }): string {
  return `recorded_event as (
     insert into events (${EVENT_COLUMNS})
     select ${source}.location_id, ?::uuid, ?, ${parts.customerId}, ?, ?, ?, ${parts.data}
       from ${source} ${parts.where === undefined ? '' : `where ${parts.where}`}
     returning location_id, id
   ),
   recorded_outbox as (${outboxOf('recorded_event')})`;
}

/** The bindings of recordEventCtes, in its order: a new event id, the type, the origin, and the data when it is bound as JSON. */
export function eventBindings(origin: RequestOrigin, type: EventType, data?: Pick<Change, 'object' | 'previous'>): Knex.RawBinding[] {
  // Made just before the statement that records the event runs.
  eventsRecorded();
  const bindings: Knex.RawBinding[] = [uuidv7(), type, origin.requestId, origin.idempotencyKey, origin.clientId];
  return data === undefined ? bindings : [...bindings, JSON.stringify({ object: data.object, previous: data.previous })];
}
