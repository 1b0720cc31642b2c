import type { Knex } from 'knex';
import type { EventType } from '../change-log/event-types';
import { cursorPage, cursorPageAcross, type PageQuery } from '../platform/db/cursor-page';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
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

/**
 * Inserted only while the location holds fewer than `max` endpoints, in one
 * statement: `webhook_endpoints_below` (migration 20261209000000) takes the
 * location's lock, so creates at one location take turns and other
 * locations never wait, and counts after it, so the count is current.
 */
const INSERT_ENDPOINT_BELOW_CAP = preparedStatement(
  'insert_webhook_endpoint_below_cap',
  `insert into webhook_endpoints (location_id, id, url, description, enabled_events, status, secret)
   select ?, ?, ?, ?, ?::text[], 'ENABLED', ?
    where webhook_endpoints_below(?, ?)
   returning ${ENDPOINT_COLUMNS.join(', ')}`,
);

/** Makes the endpoint unless its location already holds `max`; undefined then. */
export async function insertEndpointBelowCap(
  db: Knex,
  endpoint: Pick<WebhookEndpointRecord, 'locationId' | 'id' | 'url' | 'description' | 'enabledEvents' | 'secret'>,
  max: number,
): Promise<WebhookEndpointRecord | undefined> {
  const [row] = await runPrepared<EndpointRow>(db, INSERT_ENDPOINT_BELOW_CAP, [
    endpoint.locationId,
    endpoint.id,
    endpoint.url,
    endpoint.description,
    endpoint.enabledEvents,
    secretBox().seal(endpoint.secret, secretContext('webhook_endpoints', endpoint.locationId, endpoint.id)),
    endpoint.locationId,
    max,
  ]);
  return row === undefined ? undefined : toEndpointRecord(row);
}

const ENDPOINT_BY_ID = preparedStatement(
  'webhook_endpoint_by_id',
  `select ${ENDPOINT_COLUMNS.join(', ')} from webhook_endpoints where location_id = ? and id = ?`,
);

export async function findEndpoint(db: Knex, locationId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
  const [row] = await runPrepared<EndpointRow>(db, ENDPOINT_BY_ID, [locationId, id]);
  return row === undefined ? undefined : toEndpointRecord(row);
}

const EVERY_ENDPOINT = preparedStatement(
  'every_webhook_endpoint',
  `select ${ENDPOINT_COLUMNS.join(', ')} from webhook_endpoints where location_id = ? order by id`,
);

/** Every endpoint of the location (a handful: their number is capped), oldest first. */
export async function everyEndpoint(db: Knex, locationId: string): Promise<WebhookEndpointRecord[]> {
  return (await runPrepared<EndpointRow>(db, EVERY_ENDPOINT, [locationId])).map(toEndpointRecord);
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

/** The columns an update may change, with their types; each is set only when its `set_` flag is. */
const UPDATABLE_ENDPOINT_COLUMNS = {
  url: 'text',
  description: 'text',
  enabled_events: 'text[]',
  status: 'text',
  disabled_reason: 'text',
  failing_since: 'timestamptz',
} as const;

const UPDATE_ENDPOINT = namedStatement(
  'update_webhook_endpoint',
  `update webhook_endpoints
      set ${Object.entries(UPDATABLE_ENDPOINT_COLUMNS)
        .map(([column, type]) => `${column} = case when @set_${column}::boolean then @${column}::${type} else ${column} end`)
        .join(',\n          ')},
          updated_at = now()
    where location_id = @location_id and id = @id
    returning ${ENDPOINT_COLUMNS.join(', ')}`,
);

/** Applies the changes given (undefined fields stay); answers the endpoint after them, or undefined when it does not exist. */
export async function updateEndpoint(db: Knex, locationId: string, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord | undefined> {
  const columns: Record<keyof typeof UPDATABLE_ENDPOINT_COLUMNS, Knex.RawBinding | undefined> = {
    url: changes.url,
    description: changes.description,
    enabled_events: changes.enabledEvents,
    status: changes.status,
    disabled_reason: changes.disabledReason,
    failing_since: changes.failingSince,
  };
  const values: Record<string, Knex.RawBinding> = { location_id: locationId, id };
  for (const [column, value] of Object.entries(columns)) {
    values[`set_${column}`] = value !== undefined;
    values[column] = value ?? null;
  }
  const [row] = await runNamed<EndpointRow>(db, UPDATE_ENDPOINT, values);
  return row === undefined ? undefined : toEndpointRecord(row);
}

const ROTATE_SECRET = preparedStatement(
  'rotate_webhook_endpoint_secret',
  `update webhook_endpoints set previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = now()
    where location_id = ? and id = ?
    returning ${ENDPOINT_COLUMNS.join(', ')}`,
);

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
  const sealed = secretBox().seal(secret, secretContext('webhook_endpoints', locationId, id));
  const [row] = await runPrepared<EndpointRow>(db, ROTATE_SECRET, [sealed, previousExpiresAt, locationId, id]);
  return row === undefined ? undefined : toEndpointRecord(row);
}

const DELETE_ENDPOINT = preparedStatement('delete_webhook_endpoint', 'delete from webhook_endpoints where location_id = ? and id = ? returning id');

export async function deleteEndpoint(db: Knex, locationId: string, id: string): Promise<boolean> {
  return (await runPrepared(db, DELETE_ENDPOINT, [locationId, id])).length > 0;
}

/** An attempt's outcomes, in the order the attempts list reads them. */
export const ATTEMPT_OUTCOMES = ['SUCCEEDED', 'FAILED'] as const;

export interface WebhookAttemptRecord {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: EventType;
  attempt: number;
  outcome: (typeof ATTEMPT_OUTCOMES)[number];
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  attemptedAt: Date;
}

/** Whether `id` is one of the endpoint's attempts (a list cursor must be). */
export async function isAttemptOfEndpoint(db: Knex, locationId: string, endpointId: string, id: string): Promise<boolean> {
  return (await db('webhook_delivery_attempts').where({ location_id: locationId, endpoint_id: endpointId, id }).first('id')) !== undefined;
}

/** An endpoint's attempts, newest first (cursor-page.ts). */
export async function listAttempts(
  db: Knex,
  locationId: string,
  endpointId: string,
  query: { limit: number; startingAfter?: string; outcome?: (typeof ATTEMPT_OUTCOMES)[number] },
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
  // By outcome, so that the rare FAILED ones cost a page (cursorPageAcross); both outcomes for the whole list.
  const outcomes = query.outcome === undefined ? ATTEMPT_OUTCOMES : [query.outcome];
  const page = await cursorPageAcross<WebhookAttemptRecord>(db, rows, 'outcome', outcomes, { limit: query.limit, startingAfter: query.startingAfter }, 'desc');
  return { attempts: page.rows, hasMore: page.hasMore };
}
