import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { EventType } from '../change-log/event-types';
import { findEvent } from '../change-log/event-rows';
import type { PageQuery } from '../platform/db/cursor-page';
import { DomainError } from '../platform/errors/domain-error';
import { insertDeliveries } from './webhook-deliveries.repository';
import {
  deleteEndpoint,
  everyEndpoint,
  findEndpoint,
  insertEndpointBelowCap,
  listAttempts,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
  type EndpointChanges,
  type EndpointStatus,
  type WebhookAttemptRecord,
  type WebhookEndpointRecord,
  isAttemptOfEndpoint,
} from './webhook-endpoints.repository';
import { ATTEMPT_CURSOR, ENDPOINT_CURSOR, type CreateWebhookEndpointInput, type UpdateWebhookEndpointInput } from './webhook-endpoints.schemas';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { newWebhookSecret } from './webhook-signature';
import { endpointUrlProblem } from './webhook-target';

/** Does the endpoint take this type? (The fan-out asks the same in SQL: webhook-deliveries.repository.ts.) */
function subscribes(endpoint: WebhookEndpointRecord, type: EventType): boolean {
  return endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type);
}

/** What a PATCH of `status` sets: enabling clears why it was disabled and its failure streak. */
const STATUS_CHANGES = {
  ENABLED: { status: 'ENABLED', disabledReason: null, failingSince: null },
  DISABLED: { status: 'DISABLED', disabledReason: 'MANUAL' },
} as const satisfies Record<EndpointStatus, EndpointChanges>;

/** How long a rotated-out secret keeps signing beside the new one. */
const PREVIOUS_SECRET_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** A location's webhook endpoints: made, read, changed, removed, their secrets rotated, their attempts read, events redelivered to them. */
export class WebhookEndpointsService {
  constructor(private readonly settings: { allowPrivateTargets: boolean; maxEndpointsPerLocation: number }) {}

  /**
   * A location holds at most `maxEndpointsPerLocation` endpoints (every event
   * fans out to each): the insert counts them under a lock on the location's
   * endpoints, so racing creates cannot pass it together.
   */
  async create(db: Knex, locationId: string, input: CreateWebhookEndpointInput): Promise<WebhookEndpointRecord> {
    this.checkUrl(input.url);
    const { maxEndpointsPerLocation } = this.settings;
    const made = await insertEndpointBelowCap(
      db,
      { locationId, id: uuidv7(), url: input.url, description: input.description ?? null, enabledEvents: input.enabledEvents, secret: newWebhookSecret() },
      maxEndpointsPerLocation,
    );
    if (made === undefined) {
      throw new DomainError('WEBHOOK_ENDPOINT_LIMIT_REACHED', {
        message: `The location already holds ${maxEndpointsPerLocation} webhook endpoints, the most allowed. Remove one before making another.`,
      });
    }
    return made;
  }

  async list(db: Knex, locationId: string, page: PageQuery): Promise<{ endpoints: WebhookEndpointRecord[]; hasMore: boolean }> {
    await refuseUnknownCursor(page.startingAfter, ENDPOINT_CURSOR, async (after) => (await findEndpoint(db, locationId, after)) !== undefined);
    return listEndpoints(db, locationId, page);
  }

  async get(db: Knex, locationId: string, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = await findEndpoint(db, locationId, id);
    if (endpoint === undefined) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND');
    return endpoint;
  }

  /** Enabling clears why it was disabled and its failure streak; its waiting deliveries resume. */
  async update(db: Knex, locationId: string, id: string, input: UpdateWebhookEndpointInput): Promise<WebhookEndpointRecord> {
    if (input.url !== undefined) this.checkUrl(input.url);
    const statusChange = input.status === undefined ? {} : STATUS_CHANGES[input.status];
    const updated = await updateEndpoint(db, locationId, id, {
      url: input.url,
      enabledEvents: input.enabledEvents,
      description: input.description,
      ...statusChange,
    });
    if (updated === undefined) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND');
    return updated;
  }

  async remove(db: Knex, locationId: string, id: string): Promise<void> {
    if (!(await deleteEndpoint(db, locationId, id))) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND');
  }

  /** A new secret; the current one keeps signing beside it for 24 hours, so receivers can switch without a gap. */
  async rotateSecret(db: Knex, locationId: string, id: string): Promise<WebhookEndpointRecord> {
    const rotated = await rotateEndpointSecret(db, locationId, id, newWebhookSecret(), new Date(Date.now() + PREVIOUS_SECRET_LIFETIME_MS));
    if (rotated === undefined) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND');
    return rotated;
  }

  async attempts(
    db: Knex,
    locationId: string,
    id: string,
    query: { limit: number; startingAfter?: string; outcome?: 'SUCCEEDED' | 'FAILED' },
  ): Promise<{ attempts: WebhookAttemptRecord[]; hasMore: boolean }> {
    await this.get(db, locationId, id);
    await refuseUnknownCursor(query.startingAfter, ATTEMPT_CURSOR, (after) => isAttemptOfEndpoint(db, locationId, id, after));
    return listAttempts(db, locationId, id, query);
  }

  /**
   * Queues the event again: to one endpoint (which must be enabled, and gets
   * it whatever its subscriptions), or to every enabled endpoint subscribed to its type.
   */
  async redeliver(
    db: Knex,
    locationId: string,
    eventId: string,
    endpointId: string | undefined,
  ): Promise<Array<{ id: string; endpointId: string; eventId: string }>> {
    const event = await findEvent(db, locationId, eventId);
    if (event === undefined) throw new DomainError('EVENT_NOT_FOUND');
    let targets: WebhookEndpointRecord[];
    if (endpointId === undefined) {
      targets = (await everyEndpoint(db, locationId)).filter((endpoint) => endpoint.status === 'ENABLED' && subscribes(endpoint, event.type));
    } else {
      const endpoint = await findEndpoint(db, locationId, endpointId);
      if (endpoint === undefined) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', { fieldName: 'endpointId' });
      if (endpoint.status !== 'ENABLED') throw new DomainError('WEBHOOK_ENDPOINT_DISABLED', { fieldName: 'endpointId' });
      targets = [endpoint];
    }
    return insertDeliveries(
      db,
      locationId,
      event.id,
      targets.map((endpoint) => endpoint.id),
    );
  }

  private checkUrl(url: string): void {
    const problem = endpointUrlProblem(url, this.settings.allowPrivateTargets);
    if (problem !== undefined) throw new DomainError('VALIDATION_FAILED', { problems: [{ fieldName: 'url', message: problem }] });
  }
}
