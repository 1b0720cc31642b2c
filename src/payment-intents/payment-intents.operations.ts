import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { DOCUMENTED_CURRENCIES, paymentIntentLifecycle } from './payment-intent-lifecycle';
import type { CheckoutService } from './checkout.service';
import {
  cancelPaymentIntentRequestSchema,
  capturePaymentIntentRequestSchema,
  confirmPaymentIntentRequestSchema,
  createPaymentIntentRequestSchema,
  listPaymentIntentsQuerySchema,
  paymentIntentListResponseSchema,
  paymentIntentParamsSchema,
  paymentIntentSchema,
  toPaymentIntent,
  updatePaymentIntentRequestSchema,
} from './payment-intents.schemas';
import type { PaymentIntentsService } from './payment-intents.service';

const operation = operationsOf<{ paymentIntents: PaymentIntentsService; checkout: CheckoutService }>();
const tag = 'Payment intents';

export const createPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents',
  operationId: 'createPaymentIntent',
  tag,
  summary: 'Create a payment intent',
  description: `Not in the spec: the hosted-checkout backend creates the intent before checkout and hands its \`sessionSecret\` to the browser side. Amounts are integers in the currency's minor unit (cents for USD); \`amount\` is what will be charged, tip included (\`amountDetails.tip\` is the part of it that is tip, as Stripe has it). \`currency\` must be one of the configured currencies (default ${DOCUMENTED_CURRENCIES.join(', ')}). A \`customerId\` must be a customer of this location.\n\n${paymentIntentLifecycle()}`,
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

export const listPaymentIntents = operation({
  method: 'get',
  path: '/v1/payment-intents',
  operationId: 'listPaymentIntents',
  tag,
  summary: "List the location's payment intents",
  description:
    "Not in the spec. The location's intents, newest first, `limit` per page (default 10, at most 100): when `hasMore` is true, ask again with `startingAfter` set to the last `id` of the page. A `startingAfter` that is not an intent of this location is a 400. Filters combine: `customerId`, `status`, `externalReferenceId` (an order's intents), `createdAfter`, `createdBefore`.",
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
  description: `Not in the spec; a POST, as Toast updates intents. Changes the fields sent (\`null\` clears \`email\` and \`customerId\`), only while the intent is REQUIRES_PAYMENT_METHOD or REQUIRES_CONFIRMATION; in any other status, 409 (\`PAYMENT_INTENT_STATUS_CONFLICT\`) naming it. \`paymentMethodId\` attaches a saved card of the intent's customer (the intent moves to REQUIRES_CONFIRMATION), \`null\` detaches it. A tip larger than the amount is a 400. Records a \`payment_intent.updated\` event with the fields as they were; a change to nothing records none.\n\n${paymentIntentLifecycle()}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  body: { schema: updatePaymentIntentRequestSchema },
  responses: { 200: { description: 'The intent after the change.', schema: paymentIntentSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND', 'CUSTOMER_NOT_FOUND', 'PAYMENT_METHOD_NOT_FOUND', 'PAYMENT_INTENT_STATUS_CONFLICT', 'CONFLICT'],
  handle: async ({ write, params, body }, { paymentIntents }) => ({
    status: 200,
    body: toPaymentIntent(await paymentIntents.update(write, params.id, body)),
  }),
});

export const confirmPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/confirm',
  operationId: 'confirmPaymentIntent',
  tag,
  summary: 'Confirm a payment intent: pay it with a saved card',
  description: `Not in the spec. Pays the intent with \`paymentMethodId\`, a saved card of the intent's customer (404 otherwise), or the card attached by an update. The server side confirms with \`simplified-payments-integration.server:write\`; the browser side with \`simplified-payments-integration:read\` and the intent's own live \`Platform-Session-Secret\`.

The intent moves to PROCESSING (committed before the processor is asked), then on the processor's answer to REQUIRES_CAPTURE (MANUAL: capture within CAPTURE_WINDOW_SECONDS, 300 by default, or it is voided), SUCCEEDED (AUTOMATIC), or back to REQUIRES_PAYMENT_METHOD with \`lastPaymentError\` (\`code\`, \`declineCode\`, \`message\`) on a decline. The answer is 200 with the intent as it stands after that answer, a decline included; it is PROCESSING only if the processor did not answer (the service settles it later, asking again with the same idempotency key). A second confirm, or two racing, authorize once: the other answers 409 naming the status the first one reached. Repeat a confirm that timed out by reading the intent, not by confirming again.

The sandbox processor (PAYMENT_PROCESSOR=sandbox) decides by the card's last four digits: 0002 declined (card_declined, generic_decline), 9995 insufficient funds (card_declined, insufficient_funds), 0069 expired (expired_card), 0119 processing error (processing_error: retry with a confirm), 0259 approved but every capture fails (capture_failed); a card whose expiry has passed is declined as expired_card; every other card is approved.

${paymentIntentLifecycle()}`,
  access: { scope: SCOPE.serverWrite, sessionSecret: { param: 'id', is: 'intentId' } },
  params: paymentIntentParamsSchema,
  body: { schema: confirmPaymentIntentRequestSchema, optional: true },
  responses: { 200: { description: "The intent after the processor's answer (a decline included: see `lastPaymentError`).", schema: paymentIntentSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND', 'PAYMENT_METHOD_NOT_FOUND', 'SESSION_SECRET_INVALID', 'PAYMENT_INTENT_STATUS_CONFLICT', 'CONFLICT'],
  handle: async ({ write, params, body }, { checkout }) => ({
    status: 200,
    body: toPaymentIntent(await checkout.confirm(write, params.id, body.paymentMethodId)),
  }),
});

export const capturePaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/capture',
  operationId: 'capturePaymentIntent',
  tag,
  summary: 'Capture an authorized payment intent',
  description: `Not in the spec. Captures \`amountToCapture\` (at most the authorized amount; all of it when left out) of a REQUIRES_CAPTURE intent: SUCCEEDED, with \`latestPayment.amount\` the amount captured. If the processor refuses the capture, the intent stays REQUIRES_CAPTURE with \`lastPaymentError\` (200; it is voided when its capture window ends). If the processor does not answer: 503 with Retry-After, nothing recorded. Two captures racing capture once.\n\n${paymentIntentLifecycle()}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  body: { schema: capturePaymentIntentRequestSchema, optional: true },
  responses: { 200: { description: 'The intent after the capture.', schema: paymentIntentSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND', 'PAYMENT_INTENT_STATUS_CONFLICT', 'CONFLICT', 'PAYMENT_PROCESSOR_UNAVAILABLE'],
  handle: async ({ write, params, body }, { checkout }) => ({
    status: 200,
    body: toPaymentIntent(await checkout.capture(write, params.id, body.amountToCapture)),
  }),
});

export const cancelPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/cancel',
  operationId: 'cancelPaymentIntent',
  tag,
  summary: 'Cancel a payment intent',
  description: `Moves the intent to CANCELED, with the optional \`cancellationReason\`; its session secret stops working at once. An authorized intent (REQUIRES_CAPTURE) is voided at the processor first (503 with Retry-After if it does not answer, nothing recorded). PROCESSING cannot be canceled: wait for the processor's answer.\n\n${paymentIntentLifecycle()}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  body: { schema: cancelPaymentIntentRequestSchema, optional: true },
  responses: { 200: { description: 'The canceled intent.', schema: paymentIntentSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND', 'PAYMENT_INTENT_STATUS_CONFLICT', 'CONFLICT', 'PAYMENT_PROCESSOR_UNAVAILABLE'],
  handle: async ({ write, params, body }, { checkout }) => ({
    status: 200,
    body: toPaymentIntent(await checkout.cancel(write, params.id, body.cancellationReason ?? null)),
  }),
});

export const paymentIntentsOperations = [
  createPaymentIntent,
  getPaymentIntent,
  listPaymentIntents,
  updatePaymentIntent,
  confirmPaymentIntent,
  capturePaymentIntent,
  cancelPaymentIntent,
];
