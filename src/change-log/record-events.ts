import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { afterCommit } from '../platform/db/in-transaction';
import { namedStatement, runNamed, runPrepared, preparedStatement, type Binding, type NamedStatement } from '../platform/db/prepared-statement';
import type { EventType } from './event-types';
import { eventsRecorded } from './events-recorded';
import type { WriteContext, WriteOrigin } from './write-context';

/** One event, as the write that makes its change describes it. */
export interface EventToRecord {
  type: EventType;
  customerId: string | null;
  /** The resource as the API answers it after the change (as it last was, for a removal); never a secret. */
  object: object;
  /** The changed fields before the change; null for a creation or a removal. */
  previous: object | null;
}

/** An event row's columns, as both ways of recording one insert them. */
const EVENT_COLUMNS = 'location_id, id, type, customer_id, request_id, idempotency_key, client_id, data, created_at';

/** The outbox rows of the events a CTE inserted (returning location_id, id): what the webhook fan-out takes. */
const outboxOf = (inserted: string) => `insert into event_outbox (location_id, event_id) select location_id, id from ${inserted}`;

/** An event's `data`, the one shape every event has: the object after the change, and what changed. */
const dataOf = (object: string, previous: string) => `jsonb_build_object('object', ${object}, 'previous', ${previous})`;

/**
 * The events and their outbox rows in one statement (one round trip, however
 * many events): `jsonb_to_recordset` keeps its text constant, so it is
 * prepared once per connection.
 */
const INSERT_EVENTS = preparedStatement(
  'insert_events',
  `with inserted as (
     insert into events (${EVENT_COLUMNS})
     select ?, e.id, e.type, e.customer_id, ?, ?, ?, ${dataOf('e.object', 'e.previous')}, now()
       from jsonb_to_recordset(?::jsonb) as e(id uuid, type text, customer_id uuid, object jsonb, previous jsonb)
     returning location_id, id
   )
   ${outboxOf('inserted')}`,
);

/**
 * The transaction's way: records events in the transaction that makes their
 * changes, so they commit with it or not at all. Call it with the
 * transaction, never the pool; the webhook dispatcher hears of them after the commit.
 */
export async function recordEvents(trx: Knex.Transaction, write: Omit<WriteContext, 'db'>, events: readonly EventToRecord[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => ({ id: uuidv7(), type: event.type, customer_id: event.customerId, object: event.object, previous: event.previous }));
  const { origin } = write;
  await runPrepared(trx, INSERT_EVENTS, [write.locationId, origin.requestId, origin.idempotencyKey, origin.clientId, JSON.stringify(rows)]);
  afterCommit(trx, eventsRecorded);
}

/**
 * How a statement's event is described: each part is SQL over the CTE
 * `source`, which returns the changed row (with its `location_id`), at most one.
 * `object` and `previous` default to the JSON runRecording binds; `where`
 * (SQL, may use the statement's own `@names`) records the event only when it holds.
 */
export interface StatementEvent {
  source: string;
  customerId: string;
  object?: string;
  previous?: string;
  where?: string;
}

/**
 * The hot path's way: a statement that makes a change and records its event
 * and outbox row, atomic on its own, so the write needs no transaction and
 * stays one round trip. `write` is the statement's CTEs (without `with`),
 * `answer` its final select over them; both bind with `@names` of their own.
 * The CTE names `recorded_event` and `recorded_outbox`, the `@event_*`
 * names and the answer's column `recorded_events` are taken.
 */
export function statementRecordingEvent(name: string, parts: { write: string; event: StatementEvent; answer: string }): NamedStatement {
  const { source, customerId, where } = parts.event;
  const data = dataOf(parts.event.object ?? '@event_object::jsonb', parts.event.previous ?? '@event_previous::jsonb');
  return namedStatement(
    name,
    `with ${parts.write},
     recorded_event as (
       insert into events (${EVENT_COLUMNS})
       select ${source}.location_id, @event_id::uuid, @event_type, ${customerId}, @event_request_id, @event_idempotency_key, @event_client_id, ${data}, now()
         from ${source} ${where === undefined ? '' : `where ${where}`}
       returning location_id, id
     ),
     recorded_outbox as (${outboxOf('recorded_event')})
     select answer.*, (select count(*) from recorded_event)::int as recorded_events from (${parts.answer}) as answer`,
  );
}

/** The event a statementRecordingEvent records, if its `where` holds: its type, and the JSON its SQL does not build. */
export interface BoundEvent {
  origin: WriteOrigin;
  type: EventType;
  object?: object;
  previous?: object | null;
}

/**
 * Runs a statementRecordingEvent with the statement's own values and its
 * event's; the dispatcher hears of the event once it is committed, and only
 * if one was recorded. Answers the statement's rows.
 */
export async function runRecording<Row>(db: Knex, statement: NamedStatement, values: Readonly<Record<string, Binding>>, event: BoundEvent): Promise<Row[]> {
  const rows = await runNamed<Row & { recorded_events: number }>(db, statement, {
    ...values,
    event_id: uuidv7(),
    event_type: event.type,
    event_request_id: event.origin.requestId,
    event_idempotency_key: event.origin.idempotencyKey,
    event_client_id: event.origin.clientId,
    ...(event.object === undefined ? {} : { event_object: JSON.stringify(event.object) }),
    ...(event.previous === undefined ? {} : { event_previous: JSON.stringify(event.previous) }),
  });
  if (rows.some((row) => row.recorded_events > 0)) afterCommit(db, eventsRecorded);
  return rows;
}
