import type { Knex } from 'knex';
import { cursorPage, cursorPageAcross, type PageQuery } from '../platform/db/cursor-page';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import { EVENT_TYPES, resourceOf, type EventType } from './event-types';

/**
 * The `events` table, read: the pages and the one event of /v1/events, and
 * an event inside another statement (a webhook delivery's claim). Only
 * change-log/ names the table.
 */

export interface EventRecord {
  locationId: string;
  id: string;
  type: EventType;
  createdAt: Date;
  customerId: string | null;
  requestId: string | null;
  idempotencyKey: string | null;
  clientId: string | null;
  data: { object: Record<string, unknown>; previous: Record<string, unknown> | null };
}

interface EventRow {
  location_id: string;
  id: string;
  type: EventType;
  created_at: Date;
  customer_id: string | null;
  request_id: string | null;
  idempotency_key: string | null;
  client_id: string | null;
  data: EventRecord['data'];
}

const COLUMNS = ['location_id', 'id', 'type', 'created_at', 'customer_id', 'request_id', 'idempotency_key', 'client_id', 'data'];

function toEventRecord(row: EventRow): EventRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    customerId: row.customer_id,
    requestId: row.request_id,
    idempotencyKey: row.idempotency_key,
    clientId: row.client_id,
    data: row.data,
  };
}

export interface EventQuery extends PageQuery {
  /** An exact type, or `resource.*`. */
  type?: string;
  customerId?: string;
}

/** The types a `type` filter names: the type itself, or each type of a resource (`payment_intent.*`). */
function typesNamed(filter: string): readonly string[] {
  if (!filter.endsWith('.*')) return [filter];
  const resource = filter.slice(0, -2);
  return EVENT_TYPES.filter((type) => resourceOf(type) === resource);
}

/**
 * A page of the location's events, newest first (cursor-page.ts); with a
 * type, a page per type named, from the index of a location's events by
 * type (cursorPageAcross).
 */
export async function listEvents(db: Knex, locationId: string, query: EventQuery): Promise<{ events: EventRecord[]; hasMore: boolean }> {
  const rows = db('events').select(COLUMNS).where({ location_id: locationId });
  if (query.customerId !== undefined) rows.where({ customer_id: query.customerId });
  // Without a type, the location's events and a customer's history each have an index in id order.
  const page =
    query.type === undefined
      ? await cursorPage<EventRow>(rows, query, 'desc')
      : await cursorPageAcross<EventRow>(db, rows, 'type', typesNamed(query.type), query, 'desc');
  return { events: page.rows.map(toEventRecord), hasMore: page.hasMore };
}

const EVENT_BY_ID = preparedStatement('event_by_id', `select ${COLUMNS.join(', ')} from events where location_id = ? and id = ?`);

export async function findEvent(db: Knex, locationId: string, id: string): Promise<EventRecord | undefined> {
  const [row] = await runPrepared<EventRow>(db, EVENT_BY_ID, [locationId, id]);
  return row === undefined ? undefined : toEventRecord(row);
}

/**
 * The oldest `limit` events before a date, read from the front of the index
 * by age. Without the order, PostgreSQL finds a batch by scanning the table
 * from its start, past every row the batches before deleted, so at ten
 * million events each batch read more than the last (docs/performance.md,
 * Growth). Planned on each run: a plan kept from a connection's first purges
 * of a small table read the whole table for every batch once it grew
 * (purges-after-growth.test.ts). RETURNING rather than the affected-row
 * count, which PGlite does not always report.
 */
export const PURGE_EVENTS_BEFORE = preparedStatement(
  'purge_events_before',
  'delete from events where ctid = any(array(select ctid from events where created_at < ? order by created_at limit ?)) returning 1',
  { planEachRun: true },
);

/** Deletes up to `limit` events made before `before`; answers how many went. */
export async function purgeEventsBefore(db: Knex, before: Date, limit: number): Promise<number> {
  return (await runPrepared(db, PURGE_EVENTS_BEFORE, [before, limit])).length;
}

/**
 * SQL for the event (location, id) as one JSON value, for a statement that
 * reads it alongside its own rows (a delivery's claim); eventFromJson reads
 * the value back. Both arguments are SQL expressions of that statement.
 */
export function eventAsJson(locationId: string, eventId: string): string {
  return `(select row_to_json(ev) from events ev where ev.location_id = ${locationId} and ev.id = ${eventId})`;
}

/** An event read through eventAsJson: its timestamp comes back as an ISO string. */
export function eventFromJson(json: Record<string, unknown>): EventRecord {
  return toEventRecord({ ...(json as unknown as EventRow), created_at: new Date(json.created_at as string) });
}
