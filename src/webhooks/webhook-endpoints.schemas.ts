import { z } from 'zod';
import { EVENT_TYPES } from '../change-log/event-types';
import { WEBHOOK_MAX_ENDPOINTS_PER_LOCATION_BOUND } from '../platform/config';
import { int32 } from '../platform/validation/int32';
import { pageLimit, pageOf, pageQuery } from '../platform/validation/page-query';
import { safeText, uuidValue, WHITE_SPACE_AND_CONTROL } from '../platform/validation/text.schemas';
import { ATTEMPT_OUTCOMES, type WebhookAttemptRecord, type WebhookEndpointRecord } from './webhook-endpoints.repository';

/** What an endpoint may subscribe to: event types, or `*` for every type (also those added later). */
const SUBSCRIBABLE = ['*', ...EVENT_TYPES] as const;
const ENDPOINT_STATUSES = ['ENABLED', 'DISABLED'] as const;
/** Why an endpoint is disabled: by a PATCH, by a 410 answer, or after failing every attempt for WEBHOOK_DISABLE_AFTER_DAYS. */
const DISABLED_REASONS = ['MANUAL', 'GONE', 'FAILING'] as const;

/** The longest URL an endpoint may have, as sent and as stored. */
const MAX_URL_LENGTH = 2048;

/**
 * An endpoint's URL, read once by the WHATWG URL parser and kept as it
 * parsed (`new URL(url).href`): what is stored, answered and connected to
 * are one string. Nothing the parser would silently drop is accepted
 * (surrounding white space, control characters), nor credentials wherever
 * the parser finds them (`https:///u:p@host` has them too).
 */
const url = z
  .string()
  .max(MAX_URL_LENGTH, { abort: true })
  // Explicit ranges (text.schemas.ts): the document's pattern reads the same in every engine.
  .regex(new RegExp(`^[^${WHITE_SPACE_AND_CONTROL}]*$`), { message: 'Must not contain white space or control characters.', abort: true })
  .transform((value, context) => {
    const parsed = URL.parse(value);
    if (parsed === null || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.hostname === '') {
      context.addIssue({ code: 'custom', message: 'Must be an absolute http(s) URL.' });
      return z.NEVER;
    }
    if (parsed.username !== '' || parsed.password !== '') {
      context.addIssue({ code: 'custom', message: 'Must not carry credentials (user:password@).' });
      return z.NEVER;
    }
    if (parsed.href.length > MAX_URL_LENGTH) {
      context.addIssue({ code: 'custom', message: `Must be at most ${MAX_URL_LENGTH} characters long once normalized.` });
      return z.NEVER;
    }
    return parsed.href;
  })
  .meta({
    description:
      'Where deliveries are POSTed, stored and answered as the WHATWG URL parser normalizes it. `https` with a public host; plain `http` and private, loopback or link-local hosts (also as an IPv6 form that carries such an IPv4 address: compatible, mapped, NAT64, 6to4, Teredo; or a name with a trailing dot) only where WEBHOOK_ALLOW_PRIVATE_TARGETS is true (the default outside production). No credentials, white space or control characters. Redirects are not followed.',
    format: 'uri',
    example: 'https://shop.example.com/webhooks/payment-profiles',
  });

const enabledEvents = z
  .array(z.enum(SUBSCRIBABLE))
  .min(1)
  .max(SUBSCRIBABLE.length)
  .refine((types) => new Set(types).size === types.length, { message: 'Must not name a type twice.' })
  .meta({ description: 'The event types delivered to this endpoint; `*` for every type.', example: ['payment_method.attached', 'default_payment_method.set'] });

const description = safeText({ max: 1024 }).meta({ description: 'A note for the integrator: what receives these events.', example: 'Order service' });

export const createWebhookEndpointSchema = z.strictObject({ url, enabledEvents, description: description.optional() }).meta({
  id: 'CreateWebhookEndpointRequest',
  example: { url: 'https://shop.example.com/webhooks/payment-profiles', enabledEvents: ['*'], description: 'Order service' },
});
export type CreateWebhookEndpointInput = z.output<typeof createWebhookEndpointSchema>;

export const updateWebhookEndpointSchema = z
  .strictObject({
    url: url.optional(),
    enabledEvents: enabledEvents.optional(),
    description: description.nullable().optional(),
    status: z.enum(ENDPOINT_STATUSES).optional().meta({ description: 'DISABLED stops deliveries (they wait); ENABLED resumes them.' }),
  })
  .meta({ id: 'UpdateWebhookEndpointRequest', example: { status: 'DISABLED' } });
export type UpdateWebhookEndpointInput = z.output<typeof updateWebhookEndpointSchema>;

export const webhookEndpointParamsSchema = z.object({ id: uuidValue.meta({ description: 'The webhook endpoint.', param: { id: 'WebhookEndpointId' } }) });

const ENDPOINT_EXAMPLE = {
  id: '019ab3c6-1b2c-7d3e-8f40-516273849506',
  url: 'https://shop.example.com/webhooks/payment-profiles',
  description: 'Order service',
  enabledEvents: ['*'],
  status: 'ENABLED',
  disabledReason: null,
  createdAt: '2026-11-23T20:41:07.123Z',
};

const endpointFields = {
  id: z.uuid(),
  url: z.string(),
  description: z.string().nullable(),
  enabledEvents: z.array(z.enum(SUBSCRIBABLE)).max(SUBSCRIBABLE.length),
  status: z.enum(ENDPOINT_STATUSES),
  disabledReason: z.enum(DISABLED_REASONS).nullable().meta({
    description: 'Why a DISABLED endpoint is: MANUAL (a PATCH), GONE (it answered 410), FAILING (every attempt failed for WEBHOOK_DISABLE_AFTER_DAYS).',
  }),
  createdAt: z.string(),
};

export const webhookEndpointSchema = z.strictObject(endpointFields).meta({ id: 'WebhookEndpoint', example: ENDPOINT_EXAMPLE });

/** The answer of a create and of a rotation: the only ones that show the secret. */
export const webhookEndpointWithSecretSchema = z
  .strictObject({
    ...endpointFields,
    secret: z.string().meta({
      description:
        'The signing secret (`whsec_` and base64): shown in this answer only. Verify deliveries with it (Standard Webhooks); after a rotation the previous secret keeps signing beside it for 24 hours.',
    }),
  })
  .meta({ id: 'WebhookEndpointWithSecret', example: { ...ENDPOINT_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });

const { limit, startingAfter } = pageQuery({ items: 'Endpoints', item: 'endpoint' }, 'oldest first', ENDPOINT_EXAMPLE.id);
/** Paged like every list (a location holds few endpoints, WEBHOOK_MAX_ENDPOINTS_PER_LOCATION, so not by date). */
export const webhookEndpointListQuerySchema = z.object({ limit, startingAfter });

/** What the endpoints list's and an endpoint's attempts' `startingAfter` must be (their descriptions and 400s say the same). */
export const ENDPOINT_CURSOR = 'an endpoint of this location';
export const ATTEMPT_CURSOR = "one of this endpoint's attempts";

export const webhookEndpointListSchema = pageOf(
  'webhookEndpoints',
  webhookEndpointSchema,
  { items: 'endpoints', order: 'Oldest first' },
  { id: 'WebhookEndpointList', example: { results: 1, webhookEndpoints: [ENDPOINT_EXAMPLE], hasMore: false } },
);

export const attemptsQuerySchema = z.object({
  limit: pageLimit('Attempts'),
  startingAfter: uuidValue
    .optional()
    .meta({ description: 'The last attempt of the previous page (its `id`).', example: '019ab3c7-2c3d-7e4f-9051-627384950617' }),
  outcome: z.enum(ATTEMPT_OUTCOMES).optional().meta({ description: 'Only the attempts with this outcome.', example: 'FAILED' }),
});

const ATTEMPT_EXAMPLE = {
  id: '019ab3c7-2c3d-7e4f-9051-627384950617',
  deliveryId: '019ab3c7-1a2b-7c3d-8e4f-506172839405',
  eventId: '019ab3c5-0a1b-7c2d-8e3f-405162738495',
  eventType: 'default_payment_method.set',
  attempt: 1,
  outcome: 'FAILED',
  statusCode: 503,
  durationMs: 87,
  error: 'answered 503',
  attemptedAt: '2026-11-23T20:41:08.004Z',
};

const attemptSchema = z
  .strictObject({
    id: z.uuid(),
    deliveryId: z.uuid().meta({ description: 'The delivery (one event to this endpoint) the attempt belongs to.' }),
    eventId: z.uuid(),
    eventType: z.enum(EVENT_TYPES),
    attempt: int32(1, 1000).meta({ description: '1 for the first attempt, 2 for the first retry, and so on.' }),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    statusCode: int32(100, 599).nullable().meta({ description: "The endpoint's HTTP status; null when it never answered (refused, timed out)." }),
    durationMs: int32(0, 600_000),
    error: z.string().nullable().meta({ description: 'Why a failed attempt failed.' }),
    attemptedAt: z.string(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const attemptListSchema = pageOf(
  'deliveries',
  attemptSchema,
  { items: 'attempts', order: 'Each attempt, newest first' },
  { id: 'WebhookDeliveryAttemptList', example: { results: 1, deliveries: [ATTEMPT_EXAMPLE], hasMore: false } },
);

export const redeliverSchema = z
  .strictObject({
    endpointId: uuidValue
      .optional()
      .meta({ description: 'Only to this endpoint (it must be enabled); every enabled endpoint subscribed to the type when left out.' }),
  })
  .meta({ id: 'RedeliverRequest', example: { endpointId: ENDPOINT_EXAMPLE.id } });

export const redeliveryListSchema = z
  .strictObject({
    results: int32(0, 1000),
    deliveries: z
      .array(z.strictObject({ id: z.uuid(), endpointId: z.uuid(), eventId: z.uuid() }))
      .max(WEBHOOK_MAX_ENDPOINTS_PER_LOCATION_BOUND)
      .meta({
        description: 'The deliveries queued: each is attempted shortly, and retried on the usual schedule.',
      }),
  })
  .meta({
    id: 'RedeliveryList',
    example: { results: 1, deliveries: [{ id: ATTEMPT_EXAMPLE.deliveryId, endpointId: ENDPOINT_EXAMPLE.id, eventId: ATTEMPT_EXAMPLE.eventId }] },
  });

export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export function toWebhookEndpoint(endpoint: WebhookEndpointRecord): WebhookEndpoint {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    enabledEvents: endpoint.enabledEvents,
    status: endpoint.status,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt.toISOString(),
  };
}

export function toAttempt(attempt: WebhookAttemptRecord): z.infer<typeof attemptListSchema>['deliveries'][number] {
  return { ...attempt, attemptedAt: attempt.attemptedAt.toISOString() };
}
