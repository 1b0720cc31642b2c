import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { eventAsJson, eventFromJson, type EventRecord } from '../change-log/event-rows';
import { outboxConsumer, takeFromOutbox } from '../change-log/event-outbox';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import { toEndpointRecord, type WebhookEndpointRecord } from './webhook-endpoints.repository';

const FAN_OUT_EVENTS = outboxConsumer(
  'fan_out_webhook_events',
  `insert into webhook_deliveries (location_id, id, endpoint_id, event_id, status)
   select t.location_id, gen_random_uuid(), e.id, t.event_id, 'PENDING'
     from taken_events t
     join webhook_endpoints e on e.location_id = t.location_id and e.status = 'ENABLED'
                             and ('*' = any (e.enabled_events) or t.type = any (e.enabled_events))`,
);

/**
 * Turns up to `batchSize` new events into deliveries, one per enabled
 * endpoint of the event's location subscribed to its type (`*` or the type
 * itself), and takes them off the outbox, in one statement. `skip locked`:
 * replicas fanning out at once take disjoint batches, so no event is fanned
 * out twice; with nothing new, it is one cheap statement per poll. Answers
 * how many events it took.
 */
export function fanOutEvents(db: Knex, batchSize: number): Promise<number> {
  return takeFromOutbox(db, FAN_OUT_EVENTS, batchSize);
}

/** A delivery taken to be attempted: its event and endpoint as they are now. */
export interface ClaimedDelivery {
  locationId: string;
  id: string;
  /** This attempt's number: 1 for the first. */
  attempt: number;
  event: EventRecord;
  endpoint: WebhookEndpointRecord;
}

/**
 * The claim, endpoint by endpoint. `pending_endpoints` walks the distinct
 * endpoints with a pending delivery, one index descent each (a loose index
 * scan: PostgreSQL 15 has no skip scan of its own), so delivered rows and
 * endpoints with nothing pending cost nothing. Each enabled one then offers a
 * window of its own oldest due deliveries, as many as it has slots left here,
 * locked `skip locked`; the oldest of all the windows are leased. One
 * endpoint's backlog fills only its own window: another endpoint's new
 * delivery is in the next claim. Planned on every run, as the outbox's
 * fan-out is: a plan kept from when the deliveries were few read every
 * delivery, and every event, for each claim (docs/decisions.md).
 */
const CLAIM_DUE_DELIVERIES = preparedStatement(
  'claim_due_webhook_deliveries',
  `with recursive pending_endpoints as (
     (select d.location_id, d.endpoint_id from webhook_deliveries d where d.status = 'PENDING' order by d.endpoint_id limit 1)
     union all
     select next.* from pending_endpoints p cross join lateral (
       select d.location_id, d.endpoint_id from webhook_deliveries d
        where d.status = 'PENDING' and d.endpoint_id > p.endpoint_id
        order by d.endpoint_id limit 1
     ) next
   ),
   in_flight as (select b.key::uuid as endpoint_id, b.value::int as busy from jsonb_each_text(?::jsonb) b),
   candidates as (
     select window_of.* from pending_endpoints p
     join webhook_endpoints e on e.location_id = p.location_id and e.id = p.endpoint_id and e.status = 'ENABLED'
     cross join lateral (
       select d.location_id, d.id, d.next_attempt_at from webhook_deliveries d
        where d.endpoint_id = p.endpoint_id and d.status = 'PENDING' and d.next_attempt_at <= now()
        order by d.next_attempt_at
        limit greatest(? - coalesce((select f.busy from in_flight f where f.endpoint_id = p.endpoint_id), 0), 0)
        for update of d skip locked
     ) window_of
   ),
   chosen as (select c.location_id, c.id from candidates c order by c.next_attempt_at limit ?),
   leased as (
     update webhook_deliveries w
        set attempts = w.attempts + 1, next_attempt_at = now() + make_interval(secs => ?), updated_at = now()
       from chosen c
      where w.location_id = c.location_id and w.id = c.id
     returning w.location_id, w.id, w.endpoint_id, w.event_id, w.attempts
   )
   select l.location_id, l.id, l.attempts, ${eventAsJson('l.location_id', 'l.event_id')} as event, row_to_json(ep) as endpoint
     from leased l
     join webhook_endpoints ep on ep.location_id = l.location_id and ep.id = l.endpoint_id`,
  { planEachRun: true },
);

interface ClaimRow {
  location_id: string;
  id: string;
  attempts: number;
  /** The rows as JSON: their timestamps are ISO strings. */
  event: Record<string, unknown>;
  endpoint: Record<string, unknown>;
}

/** A row read through row_to_json, with its timestamp columns back as Dates. */
function withDates<Row>(json: Record<string, unknown>, columns: readonly string[]): Row {
  const row = { ...json };
  for (const column of columns) if (typeof row[column] === 'string') row[column] = new Date(row[column] as string);
  return row as Row;
}

/**
 * Takes due deliveries of enabled endpoints, oldest first, at most
 * `perEndpoint` of any one endpoint (less those `busy` already has in flight
 * here), whatever the backlog of the others, and leases them,
 * in one statement: their due time moves `leaseMs` ahead, so a replica that
 * dies mid-attempt leaves them to be retried once the lease runs out, and no
 * other replica takes them meanwhile (`skip locked` while choosing, the
 * lease after). A delivery never outlives its event (a foreign key purges it
 * with the event).
 */
export async function claimDueDeliveries(
  db: Knex,
  options: { limit: number; perEndpoint: number; busy: ReadonlyMap<string, number>; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const rows = await runPrepared<ClaimRow>(db, CLAIM_DUE_DELIVERIES, [
    JSON.stringify(Object.fromEntries(options.busy)),
    options.perEndpoint,
    options.limit,
    options.leaseMs / 1000,
  ]);
  return rows.map((row) => ({
    locationId: row.location_id,
    id: row.id,
    attempt: row.attempts,
    event: eventFromJson(row.event),
    endpoint: toEndpointRecord(withDates(row.endpoint, ['created_at', 'previous_secret_expires_at', 'failing_since'])),
  }));
}

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: 'SUCCEEDED' | 'FAILED';
}

const RECORD_ATTEMPTS = preparedStatement(
  'record_webhook_attempts',
  `with recorded as (
     select * from jsonb_to_recordset(?::jsonb) as r(
       seq int, location_id text, id uuid, delivery_id uuid, endpoint_id uuid, event_id uuid, event_type text, attempt int,
       outcome text, status_code int, duration_ms int, error text, next_status text, retry_at timestamptz)
   ),
   attempts as (
     insert into webhook_delivery_attempts
       (location_id, id, delivery_id, endpoint_id, event_id, event_type, attempt, outcome, status_code, duration_ms, error)
     select location_id, id, delivery_id, endpoint_id, event_id, event_type, attempt, outcome, status_code, duration_ms, error from recorded
   ),
   deliveries as (
     update webhook_deliveries d
        set status = r.next_status, next_attempt_at = coalesce(r.retry_at, d.next_attempt_at), updated_at = now()
       from recorded r
      where d.location_id = r.location_id and d.id = r.delivery_id
   ),
   last_of_endpoint as (
     select distinct on (location_id, endpoint_id) location_id, endpoint_id, outcome = 'SUCCEEDED' as succeeded
       from recorded order by location_id, endpoint_id, seq desc
   )
   update webhook_endpoints e
      set failing_since = case when l.succeeded then null else now() end
     from last_of_endpoint l
    where e.location_id = l.location_id and e.id = l.endpoint_id and (e.failing_since is null) = not l.succeeded`,
);

/** One attempt to record, and where its delivery goes next (SUCCEEDED, FAILED, or PENDING again at `retryAt`). */
export interface AttemptRecord {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  next: { status: 'SUCCEEDED' | 'FAILED' | 'PENDING'; retryAt?: Date };
}

/**
 * Records attempts (in the order they ended) and where their deliveries go
 * next, in one statement: one commit for a batch instead of one per
 * delivery, which cost PostgreSQL more than the rest of a delivery (the
 * bench's mix with endpoints). It also keeps each endpoint's
 * `failing_since` as its last attempt of the batch leaves it: cleared by a
 * success, set by a failure after one; the endpoint row is written only at
 * those turns, so attempts to one endpoint do not queue on its row.
 */
export async function recordAttempts(db: Knex, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map(({ delivery, result, next }, seq) => ({
    seq,
    location_id: delivery.locationId,
    id: uuidv7(),
    delivery_id: delivery.id,
    endpoint_id: delivery.endpoint.id,
    event_id: delivery.event.id,
    event_type: delivery.event.type,
    attempt: delivery.attempt,
    outcome: result.outcome,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    // Bounded: an endpoint's error text is not ours to store in full.
    error: result.error?.slice(0, 500) ?? null,
    next_status: next.status,
    retry_at: next.retryAt?.toISOString() ?? null,
  }));
  await runPrepared(db, RECORD_ATTEMPTS, [JSON.stringify(rows)]);
}

const INSERT_DELIVERIES = preparedStatement(
  'insert_webhook_deliveries',
  `insert into webhook_deliveries (location_id, id, endpoint_id, event_id, status)
   select ?, d.id, d."endpointId", ?, 'PENDING' from jsonb_to_recordset(?::jsonb) as d(id uuid, "endpointId" uuid)`,
);

/** New deliveries of one event, for a redelivery: to these endpoints, due now. */
export async function insertDeliveries(
  db: Knex,
  locationId: string,
  eventId: string,
  endpointIds: readonly string[],
): Promise<Array<{ id: string; endpointId: string; eventId: string }>> {
  const deliveries = endpointIds.map((endpointId) => ({ id: uuidv7(), endpointId, eventId }));
  if (deliveries.length > 0) await runPrepared(db, INSERT_DELIVERIES, [locationId, eventId, JSON.stringify(deliveries)]);
  return deliveries;
}
