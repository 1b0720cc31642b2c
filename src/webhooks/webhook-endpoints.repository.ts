import type { Knex } from 'knex';
import type { EventType } from '../change-log/event-types';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import { secretBox, secretContext } from '../platform/secrets/secret-box';

export type EndpointStatus = 'ENABLED' | 'DISABLED';
export type DisabledReason = 'MANUAL' | 'GONE' | 'FAILING';

export interface WebhookEndpointRecord {
  locationId: string;
  id: string;
  url: string;
  description: string | null;
  enabledEvents: Array<EventType | '*'>;
  status: EndpointStatus;
  disabledReason: DisabledReason | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
}

interface EndpointRow {
  location_id: string;
  id: string;
  url: string;
  description: string | null;
  enabled_events: Array<EventType | '*'>;
  status: EndpointStatus;
  disabled_reason: DisabledReason | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
}

const ENDPOINT_COLUMNS = [
  'location_id',
  'id',
  'url',
  'description',
  'enabled_events',
  'status',
  'disabled_reason',
  'secret',
  'previous_secret',
  'previous_secret_expires_at',
  'failing_since',
  'created_at',
];

export function toEndpointRecord(row: EndpointRow): WebhookEndpointRecord {
  const context = secretContext('webhook_endpoints', row.location_id, row.id);
  return {
    locationId: row.location_id,
    id: row.id,
    url: row.url,
    description: row.description,
    enabledEvents: row.enabled_events,
    status: row.status,
    disabledReason: row.disabled_reason,
    secret: secretBox().open(row.secret, context),
    previousSecret: row.previous_secret === null ? null : secretBox().open(row.previous_secret, context),
    previousSecretExpiresAt: row.previous_secret_expires_at,
    failingSince: row.failing_since,
    createdAt: row.created_at,
  };
}

/** A transaction-scoped lock on a location's endpoints: creates at one location take turns, other locations never wait. */
const LOCK_LOCATION_ENDPOINTS = preparedStatement(
  'lock_location_webhook_endpoints',
  "select pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || ?, 0))",
);

/** Inserted only while the location holds fewer than `max` endpoints; read after the lock, so the count is current. */
const INSERT_ENDPOINT_WITHIN = preparedStatement(
  'insert_webhook_endpoint_within',
  `insert into webhook_endpoints (location_id, id, url, description, enabled_events, status, secret)
   select ?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), 'ENABLED', ?
    where (select count(*) from webhook_endpoints where location_id = ?) < ?
   returning ${ENDPOINT_COLUMNS.join(', ')}`,
);

/** Makes the endpoint unless its location already holds `max`; undefined then. */
export async function insertEndpointWithin(
  trx: Knex.Transaction,
  endpoint: Pick<WebhookEndpointRecord, 'locationId' | 'id' | 'url' | 'description' | 'enabledEvents' | 'secret'>,
  max: number,
): Promise<WebhookEndpointRecord | undefined> {
  await runPrepared(trx, LOCK_LOCATION_ENDPOINTS, [endpoint.locationId]);
  // The types as JSON: in a transaction Knex's raw would spread an array into a list.
  const [row] = await runPrepared<EndpointRow>(trx, INSERT_ENDPOINT_WITHIN, [
    endpoint.locationId,
    endpoint.id,
    endpoint.url,
    endpoint.description,
    JSON.stringify(endpoint.enabledEvents),
    secretBox().seal(endpoint.secret, secretContext('webhook_endpoints', endpoint.locationId, endpoint.id)),
    endpoint.locationId,
    max,
  ]);
  return row === undefined ? undefined : toEndpointRecord(row);
}

export async function findEndpoint(db: Knex, locationId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
  const row = (await db('webhook_endpoints').select(ENDPOINT_COLUMNS).where({ location_id: locationId, id }).first()) as EndpointRow | undefined;
  return row === undefined ? undefined : toEndpointRecord(row);
}

/** Every endpoint of the location (a handful: their number is capped), oldest first. */
export async function everyEndpoint(db: Knex, locationId: string): Promise<WebhookEndpointRecord[]> {
  const rows = (await db('webhook_endpoints').select(ENDPOINT_COLUMNS).where({ location_id: locationId }).orderBy('id')) as EndpointRow[];
  return rows.map(toEndpointRecord);
}

/** A page of the location's endpoints, oldest first. */
export async function listEndpoints(db: Knex, locationId: string, page: PageQuery): Promise<{ endpoints: WebhookEndpointRecord[]; hasMore: boolean }> {
  const { rows, hasMore } = await cursorPage<EndpointRow>(db('webhook_endpoints').select(ENDPOINT_COLUMNS).where({ location_id: locationId }), page, 'asc');
  return { endpoints: rows.map(toEndpointRecord), hasMore };
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  enabledEvents?: Array<EventType | '*'>;
  status?: EndpointStatus;
  disabledReason?: DisabledReason | null;
  failingSince?: Date | null;
}

/** Applies the changes given (undefined fields stay); answers the endpoint after them, or undefined when it does not exist. */
export async function updateEndpoint(db: Knex, locationId: string, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord | undefined> {
  const columns: Record<string, unknown> = {
    url: changes.url,
    description: changes.description,
    enabled_events: changes.enabledEvents,
    status: changes.status,
    disabled_reason: changes.disabledReason,
    failing_since: changes.failingSince,
  };
  const set = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
  const [row] = (await db('webhook_endpoints')
    .where({ location_id: locationId, id })
    .update({ ...set, updated_at: db.fn.now() })
    .returning(ENDPOINT_COLUMNS)) as EndpointRow[];
  return row === undefined ? undefined : toEndpointRecord(row);
}

/**
 * A new secret, the current one kept as the previous until `previousExpiresAt`,
 * in one statement: its right-hand sides read the row as it was, so two
 * concurrent rotations never lose a secret a receiver may hold.
 */
export async function rotateEndpointSecret(
  db: Knex,
  locationId: string,
  id: string,
  secret: string,
  previousExpiresAt: Date,
): Promise<WebhookEndpointRecord | undefined> {
  const [row] = (await db('webhook_endpoints')
    .where({ location_id: locationId, id })
    .update({
      previous_secret: db.ref('secret'),
      secret: secretBox().seal(secret, secretContext('webhook_endpoints', locationId, id)),
      previous_secret_expires_at: previousExpiresAt,
      updated_at: db.fn.now(),
    })
    .returning(ENDPOINT_COLUMNS)) as EndpointRow[];
  return row === undefined ? undefined : toEndpointRecord(row);
}

export async function deleteEndpoint(db: Knex, locationId: string, id: string): Promise<boolean> {
  const deleted = await db('webhook_endpoints').where({ location_id: locationId, id }).delete().returning('id');
  return deleted.length > 0;
}

export interface WebhookAttemptRecord {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: EventType;
  attempt: number;
  outcome: 'SUCCEEDED' | 'FAILED';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  attemptedAt: Date;
}

/** An endpoint's attempts, newest first (cursor-page.ts). */
export async function listAttempts(
  db: Knex,
  locationId: string,
  endpointId: string,
  query: { limit: number; startingAfter?: string; outcome?: 'SUCCEEDED' | 'FAILED' },
): Promise<{ attempts: WebhookAttemptRecord[]; hasMore: boolean }> {
  const rows = db('webhook_delivery_attempts')
    .select({
      id: 'id',
      deliveryId: 'delivery_id',
      eventId: 'event_id',
      eventType: 'event_type',
      attempt: 'attempt',
      outcome: 'outcome',
      statusCode: 'status_code',
      durationMs: 'duration_ms',
      error: 'error',
      attemptedAt: 'attempted_at',
    })
    .where({ location_id: locationId, endpoint_id: endpointId });
  if (query.outcome !== undefined) rows.where({ outcome: query.outcome });
  const page = await cursorPage<WebhookAttemptRecord>(rows, { limit: query.limit, startingAfter: query.startingAfter }, 'desc');
  return { attempts: page.rows, hasMore: page.hasMore };
}
