import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { toEventRecord, type EventRecord } from '../events/events.repository';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import type { EventType } from '../events/event-types';
import { enabledEndpointsOf, toEndpointRecord, type WebhookEndpointRecord } from './webhook-endpoints.repository';

/** Does the endpoint take this type? */
export function subscribes(endpoint: Pick<WebhookEndpointRecord, 'enabledEvents'>, type: EventType): boolean {
  return endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type);
}

/**
 * Turns up to `batchSize` new events into deliveries, one per subscribed
 * enabled endpoint of the event's location, and takes them off the outbox,
 * in one transaction. `skip locked`: replicas fanning out at once take
 * disjoint batches, so no event is fanned out twice. Answers how many events it took.
 */
export async function fanOutEvents(db: Knex, batchSize: number): Promise<number> {
  return db.transaction(async (trx) => {
    const taken = (await trx('event_outbox')
      .select('location_id', 'event_id')
      .orderBy('created_at')
      .limit(batchSize)
      .forUpdate()
      .skipLocked()) as Array<{ location_id: string; event_id: string }>;
    if (taken.length === 0) return 0;
    const events = (await trx('events')
      .select('location_id', 'id', 'type')
      .whereIn(['location_id', 'id'], taken.map((row) => [row.location_id, row.event_id]))) as Array<{ location_id: string; id: string; type: EventType }>;
    const endpoints = await enabledEndpointsOf(trx, [...new Set(events.map((event) => event.location_id))]);
    const deliveries = events.flatMap((event) =>
      endpoints
        .filter((endpoint) => endpoint.locationId === event.location_id && subscribes(endpoint, event.type))
        .map((endpoint) => ({ location_id: event.location_id, id: uuidv7(), endpoint_id: endpoint.id, event_id: event.id, status: 'PENDING' })),
    );
    if (deliveries.length > 0) await trx('webhook_deliveries').insert(deliveries);
    await trx('event_outbox')
      .whereIn(['location_id', 'event_id'], taken.map((row) => [row.location_id, row.event_id]))
      .delete();
    return taken.length;
  });
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

const CLAIM_DUE_DELIVERIES = preparedStatement(
  'claim_due_webhook_deliveries',
  `with candidates as (
     select d.location_id, d.id, d.endpoint_id, d.next_attempt_at
       from webhook_deliveries d
       join webhook_endpoints e on e.location_id = d.location_id and e.id = d.endpoint_id
      where d.status = 'PENDING' and d.next_attempt_at <= now() and e.status = 'ENABLED'
      order by d.next_attempt_at
      limit ?
      for update of d skip locked
   ),
   ranked as (
     select c.*, row_number() over (partition by c.endpoint_id order by c.next_attempt_at, c.id) as place
       from candidates c
   ),
   chosen as (
     select r.location_id, r.id from ranked r
      where r.place <= ? - coalesce((select b.value::int from jsonb_each_text(?::jsonb) b where b.key = r.endpoint_id::text), 0)
      order by r.next_attempt_at
      limit ?
   ),
   leased as (
     update webhook_deliveries w
        set attempts = w.attempts + 1, next_attempt_at = now() + make_interval(secs => ?), updated_at = now()
       from chosen c
      where w.location_id = c.location_id and w.id = c.id
     returning w.location_id, w.id, w.endpoint_id, w.event_id, w.attempts
   )
   select l.location_id, l.id, l.attempts, row_to_json(ev) as event, row_to_json(ep) as endpoint
     from leased l
     join webhook_endpoints ep on ep.location_id = l.location_id and ep.id = l.endpoint_id
     left join events ev on ev.location_id = l.location_id and ev.id = l.event_id`,
);

interface ClaimRow {
  location_id: string;
  id: string;
  attempts: number;
  /** The rows as JSON: their timestamps are ISO strings. */
  event: Record<string, unknown> | null;
  endpoint: Record<string, unknown>;
}

/** A row read through row_to_json, with its timestamp columns back as Dates. */
function withDates<Row>(json: Record<string, unknown>, columns: readonly string[]): Row {
  const row = { ...json };
  for (const column of columns) if (typeof row[column] === 'string') row[column] = new Date(row[column] as string);
  return row as Row;
}

/**
 * Takes due deliveries of enabled endpoints, at most `perEndpoint` of any one
 * endpoint (less those `busy` already has in flight here), and leases them,
 * in one statement: their due time moves `leaseMs` ahead, so a replica that
 * dies mid-attempt leaves them to be retried once the lease runs out, and no
 * other replica takes them meanwhile (`skip locked` while choosing, the
 * lease after). A delivery whose event was purged under it is failed.
 */
export async function claimDueDeliveries(
  db: Knex,
  options: { limit: number; perEndpoint: number; busy: ReadonlyMap<string, number>; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const rows = await runPrepared<ClaimRow>(db, CLAIM_DUE_DELIVERIES, [
    options.limit * 4,
    options.perEndpoint,
    JSON.stringify(Object.fromEntries(options.busy)),
    options.limit,
    options.leaseMs / 1000,
  ]);
  const orphans = rows.filter((row) => row.event === null);
  if (orphans.length > 0) {
    await db('webhook_deliveries')
      .whereIn(['location_id', 'id'], orphans.map((row) => [row.location_id, row.id]))
      .update({ status: 'FAILED', updated_at: db.fn.now() });
  }
  return rows
    .filter((row) => row.event !== null)
    .map((row) => ({
      locationId: row.location_id,
      id: row.id,
      attempt: row.attempts,
      event: toEventRecord(withDates(row.event as Record<string, unknown>, ['created_at'])),
      endpoint: toEndpointRecord(withDates(row.endpoint, ['created_at', 'previous_secret_expires_at', 'failing_since'])),
    }));
}

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: 'SUCCEEDED' | 'FAILED';
}

const RECORD_ATTEMPT = preparedStatement(
  'record_webhook_attempt',
  `with attempt as (
     insert into webhook_delivery_attempts
       (location_id, id, delivery_id, endpoint_id, event_id, event_type, attempt, outcome, status_code, duration_ms, error)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
   ),
   delivery as (
     update webhook_deliveries
        set status = ?, next_attempt_at = coalesce(?::timestamptz, next_attempt_at), updated_at = now()
      where location_id = ? and id = ?
   )
   update webhook_endpoints
      set failing_since = case when ?::boolean then null else now() end
    where location_id = ? and id = ? and (failing_since is null) = not ?::boolean`,
);

/**
 * Records an attempt and where its delivery goes next (SUCCEEDED, FAILED, or
 * PENDING again at `retryAt`), in one statement. It also keeps the endpoint's
 * `failing_since`: cleared by a success, set by the first failure after one;
 * the endpoint row is written only at those turns, so attempts to one endpoint
 * do not queue on its row.
 */
export async function recordAttempt(db: Knex, delivery: ClaimedDelivery, result: AttemptResult, next: { status: 'SUCCEEDED' | 'FAILED' | 'PENDING'; retryAt?: Date }): Promise<void> {
  const succeeded = result.outcome === 'SUCCEEDED';
  await runPrepared(db, RECORD_ATTEMPT, [
    delivery.locationId,
    uuidv7(),
    delivery.id,
    delivery.endpoint.id,
    delivery.event.id,
    delivery.event.type,
    delivery.attempt,
    result.outcome,
    result.statusCode,
    result.durationMs,
    // Bounded: an endpoint's error text is not ours to store in full.
    result.error?.slice(0, 500) ?? null,
    next.status,
    next.retryAt ?? null,
    delivery.locationId,
    delivery.id,
    succeeded,
    delivery.locationId,
    delivery.endpoint.id,
    succeeded,
  ]);
}

/** New deliveries of one event, for a redelivery: to these endpoints, due now. */
export async function insertDeliveries(db: Knex, locationId: string, eventId: string, endpointIds: readonly string[]): Promise<Array<{ id: string; endpointId: string; eventId: string }>> {
  const rows = endpointIds.map((endpointId) => ({ location_id: locationId, id: uuidv7(), endpoint_id: endpointId, event_id: eventId, status: 'PENDING' }));
  if (rows.length > 0) await db('webhook_deliveries').insert(rows);
  return rows.map((row) => ({ id: row.id, endpointId: row.endpoint_id, eventId }));
}

/** Deliveries (and their attempts) older than `before`: kept as long as the events they carried. */
export async function purgeDeliveriesBefore(db: Knex, before: Date): Promise<number> {
  const { rows } = (await db.raw('delete from webhook_deliveries where created_at < ? returning 1', [before])) as { rows: unknown[] };
  return rows.length;
}
