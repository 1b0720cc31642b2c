import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { pagingProse } from '../platform/validation/page-query';
import { SETUP_INTENT_EXPIRY_MINUTES, SETUP_INTENT_STATUS_POINTER } from './setup-intent-status';
import {
  cancelSetupIntentRequestSchema,
  createSetupIntentRequestSchema,
  listSetupIntentsQuerySchema,
  SETUP_INTENT_CURSOR,
  setupIntentListResponseSchema,
  setupIntentParamsSchema,
  setupIntentSchema,
  toSetupIntent,
} from './setup-intents.schemas';
import type { SetupIntentsService } from './setup-intents.service';

const operation = operationsOf<{ setupIntents: SetupIntentsService }>();
const tag = 'Setup intents';

export const createSetupIntent = operation({
  method: 'post',
  path: '/v1/setup-intents',
  operationId: 'createSetupIntent',
  tag,
  summary: 'Create a setup intent: save a card without a payment',
  description: `Not in the spec; Toast's setup intent. The server side creates it for a customer of this location and hands its \`sessionSecret\` (\`SI_…\`) to the browser side, which confirms it with the card the vault gave (POST /v1/setup-intents/{id}/confirm). \`usage: OFF_SESSION\` also lets the merchant charge the card with the payor absent: it requires \`standingInstructionType\` and the payor's \`consent\` (400 naming the missing field), recorded now and made into a mandate in the same transaction that saves the verified card. The secret and an unfinished setup intent die ${SETUP_INTENT_EXPIRY_MINUTES} minutes after creation on the location's clock (CANCELED, \`cancellationReason\` EXPIRED). Records \`setup_intent.created\`. Walk-through: docs/cards-on-file.md.\n\n${SETUP_INTENT_STATUS_POINTER}`,
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  // Kept encrypted on the setup intent, never in the stored answer: a replay reads it from the intent.
  secretInAnswer: {
    field: 'sessionSecret',
    reread: async ({ db, location, answer }, { setupIntents }) => (await setupIntents.get(db, location, String(answer.id))).sessionSecret,
  },
  body: { schema: createSetupIntentRequestSchema },
  responses: { 201: { description: 'The new setup intent, in REQUIRES_PAYMENT_METHOD, with a new session secret.', schema: setupIntentSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'CONFLICT'],
  handle: async ({ write, body }, { setupIntents }) => ({ status: 201, body: toSetupIntent(await setupIntents.create(write, body)) }),
});

export const getSetupIntent = operation({
  method: 'get',
  path: '/v1/setup-intents/{id}',
  operationId: 'getSetupIntent',
  tag,
  summary: 'Get a setup intent',
  description:
    "Not in the spec. The server side reads with `simplified-payments-integration.server:write`; the browser side may read its own setup intent with `simplified-payments-integration:read` and the setup intent's live `Platform-Session-Secret`, as a payment intent's read allows. Another location's is a 404.",
  access: { scope: SCOPE.serverWrite, sessionSecret: { param: 'id', is: 'setupIntentId' } },
  params: setupIntentParamsSchema,
  responses: { 200: { description: 'The setup intent.', schema: setupIntentSchema } },
  errors: ['SETUP_INTENT_NOT_FOUND'],
  handle: async ({ db, location, params }, { setupIntents }) => ({ status: 200, body: toSetupIntent(await setupIntents.get(db, location, params.id)) }),
});

export const listSetupIntents = operation({
  method: 'get',
  path: '/v1/setup-intents',
  operationId: 'listSetupIntents',
  tag,
  summary: "List the location's setup intents",
  description: `Not in the spec. ${pagingProse('newest first', SETUP_INTENT_CURSOR)} Filters combine: \`customerId\`, \`status\`.`,
  access: { scope: SCOPE.serverWrite },
  query: listSetupIntentsQuerySchema,
  responses: { 200: { description: 'A page of setup intents.', schema: setupIntentListResponseSchema } },
  errors: [],
  handle: async ({ db, location, query }, { setupIntents }) => {
    const page = await setupIntents.list(db, location, query);
    return { status: 200, body: { results: page.intents.length, setupIntents: page.intents.map(toSetupIntent), hasMore: page.hasMore } };
  },
});

export const cancelSetupIntent = operation({
  method: 'post',
  path: '/v1/setup-intents/{id}/cancel',
  operationId: 'cancelSetupIntent',
  tag,
  summary: 'Cancel a setup intent',
  description: `Not in the spec. CANCELED, while REQUIRES_PAYMENT_METHOD (409 \`SETUP_INTENT_STATUS_CONFLICT\` naming any other status); its session secret dies. Nothing is held at the processor. Records \`setup_intent.canceled\`.\n\n${SETUP_INTENT_STATUS_POINTER}`,
  access: { scope: SCOPE.serverWrite },
  params: setupIntentParamsSchema,
  body: { schema: cancelSetupIntentRequestSchema, optional: true },
  responses: { 200: { description: 'The setup intent, CANCELED.', schema: setupIntentSchema } },
  errors: ['SETUP_INTENT_NOT_FOUND', 'SETUP_INTENT_STATUS_CONFLICT'],
  handle: async ({ write, params, body }, { setupIntents }) => ({
    status: 200,
    body: toSetupIntent(await setupIntents.cancel(write, params.id, body.cancellationReason ?? null)),
  }),
});

export const setupIntentsOperations = [createSetupIntent, getSetupIntent, listSetupIntents, cancelSetupIntent];
