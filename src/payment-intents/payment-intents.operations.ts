import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { DOCUMENTED_CURRENCIES, paymentIntentLifecycle } from './payment-intent-lifecycle';
import { createPaymentIntentRequestSchema, paymentIntentParamsSchema, paymentIntentSchema, toPaymentIntent } from './payment-intents.schemas';
import type { PaymentIntentsService } from './payment-intents.service';

const operation = operationsOf<{ paymentIntents: PaymentIntentsService }>();
const tag = 'Payment intents';

export const createPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents',
  operationId: 'createPaymentIntent',
  tag,
  summary: 'Create a payment intent',
  description: `Not in the spec: the hosted-checkout backend creates the intent before checkout and hands its \`sessionSecret\` to the browser side. Amounts are integers in the currency's minor unit (cents for USD); \`currency\` must be one of the configured currencies (default ${DOCUMENTED_CURRENCIES.join(', ')}). A \`customerId\` must be a customer of this location.\n\n${paymentIntentLifecycle()}`,
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  body: { schema: createPaymentIntentRequestSchema },
  responses: {
    201: { description: 'The new intent, in REQUIRES_PAYMENT_METHOD, with a new session secret.', schema: paymentIntentSchema },
  },
  errors: ['CUSTOMER_NOT_FOUND', 'CONFLICT'],
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

export const cancelPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/cancel',
  operationId: 'cancelPaymentIntent',
  tag,
  summary: 'Cancel a payment intent',
  description: `Moves the intent to CANCELED; its session secret stops working at once.\n\n${paymentIntentLifecycle()}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  responses: { 200: { description: 'The canceled intent.', schema: paymentIntentSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND', 'PAYMENT_INTENT_STATUS_CONFLICT', 'CONFLICT'],
  handle: async ({ write, params }, { paymentIntents }) => ({
    status: 200,
    body: toPaymentIntent(await paymentIntents.cancel(write, params.id)),
  }),
});

export const paymentIntentsOperations = [createPaymentIntent, getPaymentIntent, cancelPaymentIntent];
