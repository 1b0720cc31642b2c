import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { eventParamsSchema } from '../change-log/event-schema';
import type { WebhookEndpointsService } from './webhook-endpoints.service';
import { pagingProse } from '../platform/validation/page-query';
import {
  ATTEMPT_CURSOR,
  ENDPOINT_CURSOR,
  attemptListSchema,
  attemptsQuerySchema,
  createWebhookEndpointSchema,
  redeliverSchema,
  redeliveryListSchema,
  toAttempt,
  toWebhookEndpoint,
  updateWebhookEndpointSchema,
  webhookEndpointListQuerySchema,
  webhookEndpointListSchema,
  webhookEndpointParamsSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from './webhook-endpoints.schemas';

const operation = operationsOf<{ webhookEndpoints: WebhookEndpointsService }>();
const tag = 'Webhooks';
const access = { scope: SCOPE.webhooksWrite };

const DELIVERY =
  'Deliveries follow the Standard Webhooks specification: a POST of the event (as `GET /v1/events/{id}` answers it) with `webhook-id` (the event id), `webhook-timestamp` and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret). A 2xx within 10 s is delivered; anything else is retried on WEBHOOK_RETRY_SCHEDULE (about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, with jitter), then failed. A 410 disables the endpoint at once; one failing every attempt for 5 days is disabled.';

export const createWebhookEndpoint = operation({
  method: 'post',
  path: '/v1/webhook-endpoints',
  operationId: 'createWebhookEndpoint',
  tag,
  summary: 'Create a webhook endpoint',
  description: `An endpoint of this location: it receives the location's events of the types it names. The answer is the only one that shows its \`secret\`. A location holds at most WEBHOOK_MAX_ENDPOINTS_PER_LOCATION endpoints (16 by default, as Stripe allows): one more is a 409 (WEBHOOK_ENDPOINT_LIMIT_REACHED), however creates race. The secret is kept encrypted and never stored with the answer to an Idempotency-Key: a replay reads the endpoint's current secret (the new one after a rotation; 404 once the endpoint is deleted). ${DELIVERY}`,
  access,
  idempotent: true,
  // Kept encrypted on the endpoint, never in the stored answer: a replay reads the current secret (the new one after a rotation).
  secretInAnswer: {
    field: 'secret',
    reread: async ({ db, location, answer }, { webhookEndpoints }) => (await webhookEndpoints.get(db, location, String(answer.id))).secret,
  },
  body: { schema: createWebhookEndpointSchema },
  responses: { 201: { description: 'The endpoint, with its signing secret.', schema: webhookEndpointWithSecretSchema } },
  errors: ['WEBHOOK_ENDPOINT_LIMIT_REACHED', 'WEBHOOK_ENDPOINT_NOT_FOUND', 'CONFLICT'],
  handle: async ({ db, location, body }, { webhookEndpoints }) => {
    const endpoint = await webhookEndpoints.create(db, location, body);
    return { status: 201, body: { ...toWebhookEndpoint(endpoint), secret: endpoint.secret } };
  },
});

export const listWebhookEndpoints = operation({
  method: 'get',
  path: '/v1/webhook-endpoints',
  operationId: 'listWebhookEndpoints',
  tag,
  summary: "List the location's webhook endpoints",
  description: `${pagingProse('oldest first', ENDPOINT_CURSOR)} A location holds at most WEBHOOK_MAX_ENDPOINTS_PER_LOCATION endpoints (16 by default). Secrets are never listed.`,
  access,
  query: webhookEndpointListQuerySchema,
  responses: { 200: { description: 'A page of endpoints.', schema: webhookEndpointListSchema } },
  errors: [],
  handle: async ({ db, location, query }, { webhookEndpoints }) => {
    const { endpoints, hasMore } = await webhookEndpoints.list(db, location, query);
    return { status: 200, body: { results: endpoints.length, webhookEndpoints: endpoints.map(toWebhookEndpoint), hasMore } };
  },
});

export const getWebhookEndpoint = operation({
  method: 'get',
  path: '/v1/webhook-endpoints/{id}',
  operationId: 'getWebhookEndpoint',
  tag,
  summary: 'Read a webhook endpoint',
  description: "Without its secret. Another location's endpoint is a 404.",
  access,
  params: webhookEndpointParamsSchema,
  responses: { 200: { description: 'The endpoint.', schema: webhookEndpointSchema } },
  errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  handle: async ({ db, location, params }, { webhookEndpoints }) => ({
    status: 200,
    body: toWebhookEndpoint(await webhookEndpoints.get(db, location, params.id)),
  }),
});

export const updateWebhookEndpoint = operation({
  method: 'patch',
  path: '/v1/webhook-endpoints/{id}',
  operationId: 'updateWebhookEndpoint',
  tag,
  summary: 'Change a webhook endpoint',
  description:
    'Changes the fields given. `status: DISABLED` holds its deliveries (they wait, and are not failed); `status: ENABLED` resumes them, also after the service disabled it (`disabledReason` GONE or FAILING).',
  access,
  params: webhookEndpointParamsSchema,
  body: { schema: updateWebhookEndpointSchema },
  responses: { 200: { description: 'The endpoint after the change.', schema: webhookEndpointSchema } },
  errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  handle: async ({ db, location, params, body }, { webhookEndpoints }) => ({
    status: 200,
    body: toWebhookEndpoint(await webhookEndpoints.update(db, location, params.id, body)),
  }),
});

export const deleteWebhookEndpoint = operation({
  method: 'delete',
  path: '/v1/webhook-endpoints/{id}',
  operationId: 'deleteWebhookEndpoint',
  tag,
  summary: 'Delete a webhook endpoint',
  description: 'The endpoint, its pending deliveries and its attempts are gone; the events stay.',
  access,
  params: webhookEndpointParamsSchema,
  responses: { 204: { description: 'Deleted.' } },
  errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  handle: async ({ db, location, params }, { webhookEndpoints }) => {
    await webhookEndpoints.remove(db, location, params.id);
    return { status: 204, body: undefined };
  },
});

export const rotateWebhookEndpointSecret = operation({
  method: 'post',
  path: '/v1/webhook-endpoints/{id}/rotate-secret',
  operationId: 'rotateWebhookEndpointSecret',
  tag,
  summary: "Rotate a webhook endpoint's secret",
  description:
    'Answers the endpoint with a new `secret` (shown only here). For 24 hours the previous secret keeps signing beside it: each delivery carries two signatures in `webhook-signature`, so a receiver verifies with either while it switches.',
  access,
  params: webhookEndpointParamsSchema,
  responses: { 200: { description: 'The endpoint, with its new secret.', schema: webhookEndpointWithSecretSchema } },
  errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  handle: async ({ db, location, params }, { webhookEndpoints }) => {
    const endpoint = await webhookEndpoints.rotateSecret(db, location, params.id);
    return { status: 200, body: { ...toWebhookEndpoint(endpoint), secret: endpoint.secret } };
  },
});

export const listWebhookDeliveries = operation({
  method: 'get',
  path: '/v1/webhook-endpoints/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tag,
  summary: "A webhook endpoint's delivery attempts",
  description: `Every attempt to deliver an event to this endpoint: its outcome, the HTTP status (null when the endpoint never answered), how long it took and why it failed. ${pagingProse('newest first', ATTEMPT_CURSOR)}`,
  access,
  params: webhookEndpointParamsSchema,
  query: attemptsQuerySchema,
  responses: { 200: { description: 'A page of attempts.', schema: attemptListSchema } },
  errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { webhookEndpoints }) => {
    const { attempts, hasMore } = await webhookEndpoints.attempts(db, location, params.id, query);
    return { status: 200, body: { results: attempts.length, deliveries: attempts.map(toAttempt), hasMore } };
  },
});

export const redeliverEvent = operation({
  method: 'post',
  path: '/v1/events/{id}/redeliver',
  operationId: 'redeliverEvent',
  tag,
  summary: 'Deliver an event again',
  description:
    'Queues a new delivery of the event: to `endpointId` alone (which must be enabled; it gets the event whatever types it subscribes to), or to every enabled endpoint subscribed to its type. Answers before any attempt starts.',
  access,
  params: eventParamsSchema,
  body: { schema: redeliverSchema, optional: true },
  responses: { 202: { description: 'The deliveries queued.', schema: redeliveryListSchema } },
  errors: ['EVENT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED'],
  handle: async ({ db, location, params, body }, { webhookEndpoints }) => {
    const deliveries = await webhookEndpoints.redeliver(db, location, params.id, body.endpointId);
    return { status: 202, body: { results: deliveries.length, deliveries } };
  },
});

export const webhookEndpointsOperations = [
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookEndpointSecret,
  listWebhookDeliveries,
  redeliverEvent,
];
