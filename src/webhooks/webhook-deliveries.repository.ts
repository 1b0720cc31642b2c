import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { toEventRecord, type EventRecord } from '../events/events.repository';
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

/**
 * Takes due deliveries of enabled endpoints, at most `perEndpoint` of any one
 * endpoint (less those `busy` already has in flight here), and leases them:
 * their due time moves `leaseMs` ahead, so a replica that dies mid-attempt
 * leaves them to be retried once the lease runs out, and no other replica
 * takes them meanwhile (`skip locked` while choosing, the lease after).
 */
export async function claimDueDeliveries(
  db: Knex,
  options: { limit: number; perEndpoint: number; busy: ReadonlyMap<string, number>; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  return db.transaction(async (trx) => {
    const due = (await trx('webhook_deliveries as d')
      .join('webhook_endpoints as e', function joinEndpoint() {
        this.on('e.location_id', 'd.location_id').andOn('e.id', 'd.endpoint_id');
      })
      .select('d.location_id', 'd.id', 'd.endpoint_id', 'd.event_id', 'd.attempts')
      .where('d.status', 'PENDING')
      .andWhere('d.next_attempt_at', '<=', trx.fn.now())
      .andWhere('e.status', 'ENABLED')
      .orderBy('d.next_attempt_at')
      .limit(options.limit * 4)
      .forUpdate('d')
      .skipLocked()) as Array<{ location_id: string; id: string; endpoint_id: string; event_id: string; attempts: number }>;
    const taken: typeof due = [];
    const counts = new Map(options.busy);
    for (const row of due) {
      const inFlight = counts.get(row.endpoint_id) ?? 0;
      if (taken.length >= options.limit || inFlight >= options.perEndpoint) continue;
      counts.set(row.endpoint_id, inFlight + 1);
      taken.push(row);
    }
    if (taken.length === 0) return [];
    await trx('webhook_deliveries')
      .whereIn(['location_id', 'id'], taken.map((row) => [row.location_id, row.id]))
      .update({
        attempts: trx.raw('attempts + 1'),
        next_attempt_at: trx.raw(`now() + make_interval(secs => ?)`, [options.leaseMs / 1000]),
        updated_at: trx.fn.now(),
      });
    const events = await trx('events').whereIn(['location_id', 'id'], taken.map((row) => [row.location_id, row.event_id]));
    const endpoints = await trx('webhook_endpoints').whereIn(['location_id', 'id'], taken.map((row) => [row.location_id, row.endpoint_id]));
    const eventById = new Map(events.map((row) => [row.id as string, toEventRecord(row)]));
    const endpointById = new Map(endpoints.map((row) => [row.id as string, toEndpointRecord(row)]));
    const claimed: ClaimedDelivery[] = [];
    for (const row of taken) {
      const event = eventById.get(row.event_id);
      const endpoint = endpointById.get(row.endpoint_id);
      // An event purged under a pending delivery (retention shorter than the schedule) has nothing left to send.
      if (event === undefined || endpoint === undefined) {
        await trx('webhook_deliveries').where({ location_id: row.location_id, id: row.id }).update({ status: 'FAILED', updated_at: trx.fn.now() });
        continue;
      }
      claimed.push({ locationId: row.location_id, id: row.id, attempt: row.attempts + 1, event, endpoint });
    }
    return claimed;
  });
}

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: 'SUCCEEDED' | 'FAILED';
}

/**
 * Records an attempt and where its delivery goes next: SUCCEEDED, FAILED, or
 * PENDING again at `retryAt`. Also keeps the endpoint's `failing_since`:
 * cleared by a success, set by the first failure after one.
 */
export async function recordAttempt(db: Knex, delivery: ClaimedDelivery, result: AttemptResult, next: { status: 'SUCCEEDED' | 'FAILED' | 'PENDING'; retryAt?: Date }): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhook_delivery_attempts').insert({
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
    });
    await trx('webhook_deliveries')
      .where({ location_id: delivery.locationId, id: delivery.id })
      .update({ status: next.status, ...(next.retryAt ? { next_attempt_at: next.retryAt } : {}), updated_at: trx.fn.now() });
    const endpoint = trx('webhook_endpoints').where({ location_id: delivery.locationId, id: delivery.endpoint.id });
    if (result.outcome === 'SUCCEEDED') await endpoint.whereNotNull('failing_since').update({ failing_since: null });
    else await endpoint.whereNull('failing_since').update({ failing_since: trx.fn.now() });
  });
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
