import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { pagingProse } from '../platform/validation/page-query';
import { DOCUMENTED_CURRENCIES, STATUS_TABLE_POINTER } from './payment-intent-lifecycle';
import {
  PAYMENT_INTENT_CURSOR,
  createPaymentIntentRequestSchema,
  listPaymentIntentsQuerySchema,
  paymentIntentListResponseSchema,
  paymentIntentParamsSchema,
  paymentIntentSchema,
  toPaymentIntent,
  updatePaymentIntentRequestSchema,
} from './payment-intents.schemas';
import type { PaymentIntentsService } from './payment-intents.service';
import { ledgerTrailResponseSchema, type SettlementService } from '../settlement';

const operation = operationsOf<{ paymentIntents: PaymentIntentsService }>();
const tag = 'Payment intents';

export const createPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents',
  operationId: 'createPaymentIntent',
  tag,
  summary: 'Create a payment intent',
  description: `Not in the spec: the hosted-checkout backend creates the intent before checkout and hands its \`sessionSecret\` to the browser side. Amounts are integers in the currency's minor unit (cents for USD); \`amount\` is what will be charged, tip included (\`amountDetails.tip\` is the part of it that is tip, as Stripe has it). \`currency\` must be one of the configured currencies (default ${DOCUMENTED_CURRENCIES.join(', ')}). A \`customerId\` must be a customer of this location.\n\nA merchant-initiated charge (\`offSession: true\`, the payor absent) names the ACTIVE mandate of its customer it is made under (\`mandateId\`; 400 without, 404 for another customer's, 409 \`MANDATE_INACTIVE\` once revoked, 409 \`MANDATE_AMOUNT_EXCEEDED\` above its \`maxAmount\`), and is confirmed by the server side only. \`contextName\` names the integration context whose default card pays when a confirm names none (docs/cards-on-file.md).\n\n${STATUS_TABLE_POINTER}`,
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  // Kept encrypted on the intent, never in the stored answer: a replay reads it from the intent.
  secretInAnswer: {
    field: 'sessionSecret',
    reread: async ({ db, location, answer }, { paymentIntents }) => (await paymentIntents.get(db, location, String(answer.id))).sessionSecret,
  },
  body: { schema: createPaymentIntentRequestSchema },
  responses: {
    201: { description: 'The new intent, in REQUIRES_PAYMENT_METHOD, with a new session secret.', schema: paymentIntentSchema },
  },
  errors: ['CUSTOMER_NOT_FOUND', 'MANDATE_NOT_FOUND', 'MANDATE_INACTIVE', 'MANDATE_AMOUNT_EXCEEDED', 'CONFLICT'],
  handle: async ({ write, body }, { paymentIntents }) => ({
    status: 201,
    body: toPaymentIntent(await paymentIntents.create(write, body)),
  }),
});

export const getPaymentIntent = operation({
  method: 'get',
  path: '/v1/payment-intents/{id}',
  operationId: 'getPaymentIntent',
  tag,
  summary: 'Get a payment intent',
  description:
    "The spec's operation 6. The server side reads with `simplified-payments-integration.server:write`; the browser side may read its own intent with a token holding only `simplified-payments-integration:read` and the intent's own `Platform-Session-Secret`. An intent of another location is a 404 (the spec lists no 404; an unknown id needs one).",
  // The browser side may read its own intent with the intent's session secret.
  access: { scope: SCOPE.serverWrite, sessionSecret: { param: 'id', is: 'intentId' } },
  params: paymentIntentParamsSchema,
  responses: { 200: { description: 'The payment intent.', schema: paymentIntentSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND'],
  handle: async ({ db, location, params }, { paymentIntents }) => ({
    status: 200,
    body: toPaymentIntent(await paymentIntents.get(db, location, params.id)),
  }),
});

export const listPaymentIntents = operation({
  method: 'get',
  path: '/v1/payment-intents',
  operationId: 'listPaymentIntents',
  tag,
  summary: "List the location's payment intents",
  description: `Not in the spec. The location's intents. ${pagingProse('newest first', PAYMENT_INTENT_CURSOR)} Filters combine: \`customerId\`, \`status\`, \`externalReferenceId\` (an order's intents), \`createdAfter\`, \`createdBefore\`.`,
  access: { scope: SCOPE.serverWrite },
  query: listPaymentIntentsQuerySchema,
  responses: { 200: { description: 'A page of payment intents.', schema: paymentIntentListResponseSchema } },
  errors: [],
  handle: async ({ db, location, query }, { paymentIntents }) => {
    const page = await paymentIntents.list(db, location, query);
    return { status: 200, body: { results: page.intents.length, paymentIntents: page.intents.map(toPaymentIntent), hasMore: page.hasMore } };
  },
});

export const updatePaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}',
  operationId: 'updatePaymentIntent',
  tag,
  summary: 'Change a payment intent before it is paid',
  description: `Not in the spec; a POST, as Toast updates intents. Changes the fields sent (\`null\` clears \`email\` and \`customerId\`), only while the intent is REQUIRES_PAYMENT_METHOD or REQUIRES_CONFIRMATION; in any other status, 409 (\`PAYMENT_INTENT_STATUS_CONFLICT\`) naming it. \`paymentMethodId\` attaches a saved card of the intent's customer (the intent moves to REQUIRES_CONFIRMATION), \`null\` detaches it. A tip larger than the amount is a 400. An intent with a mandate must stay chargeable under it (409 \`MANDATE_INACTIVE\` once it is revoked, \`MANDATE_AMOUNT_EXCEEDED\` above its \`maxAmount\`). Records a \`payment_intent.updated\` event with the fields as they were; a change to nothing records none.\n\n${STATUS_TABLE_POINTER}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  body: { schema: updatePaymentIntentRequestSchema },
  responses: { 200: { description: 'The intent after the change.', schema: paymentIntentSchema } },
  errors: [
    'PAYMENT_INTENT_NOT_FOUND',
    'CUSTOMER_NOT_FOUND',
    'PAYMENT_METHOD_NOT_FOUND',
    'MANDATE_NOT_FOUND',
    'PAYMENT_INTENT_STATUS_CONFLICT',
    'MANDATE_INACTIVE',
    'MANDATE_AMOUNT_EXCEEDED',
    'CONFLICT',
  ],
  handle: async ({ write, params, body }, { paymentIntents }) => ({
    status: 200,
    body: toPaymentIntent(await paymentIntents.update(write, params.id, body)),
  }),
});

/** An intent's money in the ledger: read here, where a missing intent is the 404 it is. */
const ledgerOperation = operationsOf<{ paymentIntents: PaymentIntentsService; settlement: SettlementService }>();

export const getPaymentIntentLedger = ledgerOperation({
  method: 'get',
  path: '/v1/payment-intents/{id}/ledger',
  operationId: 'getPaymentIntentLedger',
  tag,
  summary: "Get a payment intent's ledger trail",
  description:
    'Not in the spec. Every ledger line of one payment (its capture, each refund, each failed refund), in the order written, each with the batch and the payout it landed in (docs/settlement.md). An intent never captured has none.',
  access: { scope: SCOPE.reportsRead },
  params: paymentIntentParamsSchema,
  responses: { 200: { description: "The intent's lines.", schema: ledgerTrailResponseSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND'],
  handle: async ({ db, location, params }, { paymentIntents, settlement }) => {
    await paymentIntents.get(db, location, params.id);
    return { status: 200, body: { lines: await settlement.intentTrail(db, location, params.id) } };
  },
});

export const paymentIntentsOperations = [createPaymentIntent, getPaymentIntent, listPaymentIntents, updatePaymentIntent, getPaymentIntentLedger];
