import { operationsOf } from '../../api/operation';
import { SCOPE } from '../../auth/scopes';
import {
  cancelPaymentIntentRequestSchema,
  capturePaymentIntentRequestSchema,
  confirmPaymentIntentRequestSchema,
  STATUS_TABLE_POINTER,
  paymentIntentParamsSchema,
  paymentIntentSchema,
  toPaymentIntent,
} from '../../payment-intents';
import { sandboxCardTable } from '../../payment-processor/sandbox-cards';
import type { CheckoutFlow } from './checkout.flow';

/** The operations that start the checkout flow: the intent's moves that ask the processor. */
const operation = operationsOf<{ checkout: CheckoutFlow }>();
const tag = 'Payment intents';

export const confirmPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/confirm',
  operationId: 'confirmPaymentIntent',
  tag,
  summary: 'Confirm a payment intent: pay it with a saved card',
  description: `Not in the spec. Pays the intent with \`paymentMethodId\`, a saved card of the intent's customer (404 otherwise); when left out, the card attached by an update, else the card of the intent's mandate, else the customer's default card for the intent's \`contextName\` (400 naming \`paymentMethodId\` when none of them is). An off-session intent (a merchant-initiated charge) is confirmed by the server side only (403 for the browser), on its mandate's card, which stays chargeable while the mandate is ACTIVE even after the payor removes it; its mandate is checked again (409 \`MANDATE_INACTIVE\`, \`MANDATE_AMOUNT_EXCEEDED\`). The server side confirms with \`simplified-payments-integration.server:write\`; the browser side with \`simplified-payments-integration:read\` and the intent's own live \`Platform-Session-Secret\`.

The intent moves to PROCESSING (committed before the processor is asked), then on the processor's answer to REQUIRES_CAPTURE (MANUAL: capture within CAPTURE_WINDOW_SECONDS, 300 by default, or it is voided), SUCCEEDED (AUTOMATIC), or back to REQUIRES_PAYMENT_METHOD with \`lastPaymentError\` (\`code\`, \`declineCode\`, \`message\`) on a decline. The answer is 200 with the intent as it stands after that answer, a decline included; it is PROCESSING only if the processor did not answer (the service settles it later, asking again with the same idempotency key). A second confirm, or two racing, authorize once: the other answers 409 naming the status the first one reached. Repeat a confirm that timed out by reading the intent, not by confirming again.

The sandbox processor (PAYMENT_PROCESSOR=sandbox) decides by the card's last four digits:

${sandboxCardTable()}

${STATUS_TABLE_POINTER}`,
  access: { scope: SCOPE.serverWrite, sessionSecret: { param: 'id', is: 'intentId' } },
  params: paymentIntentParamsSchema,
  body: { schema: confirmPaymentIntentRequestSchema, optional: true },
  responses: { 200: { description: "The intent after the processor's answer (a decline included: see `lastPaymentError`).", schema: paymentIntentSchema } },
  errors: [
    'PAYMENT_INTENT_NOT_FOUND',
    'PAYMENT_METHOD_NOT_FOUND',
    'MANDATE_NOT_FOUND',
    'SESSION_SECRET_INVALID',
    'INSUFFICIENT_SCOPE',
    'PAYMENT_INTENT_STATUS_CONFLICT',
    'MANDATE_INACTIVE',
    'MANDATE_AMOUNT_EXCEEDED',
    'CONFLICT',
  ],
  handle: async ({ write, params, body, bySessionSecret }, { checkout }) => ({
    status: 200,
    body: toPaymentIntent(await checkout.confirm(write, params.id, { paymentMethodId: body.paymentMethodId, bySessionSecret })),
  }),
});

export const capturePaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/capture',
  operationId: 'capturePaymentIntent',
  tag,
  summary: 'Capture an authorized payment intent',
  description: `Not in the spec. Captures \`amountToCapture\` (at most the authorized amount; all of it when left out) of a REQUIRES_CAPTURE intent: SUCCEEDED, with \`latestPayment.amount\` and \`amountCaptured\` the amount captured.

The tip written on the slip is taken at capture (Stripe's overcapture, not an incremental authorization): \`amountDetails.tip\` replaces the intent's tip and \`amount\` becomes its amount without the old tip plus the new one, captured up to OVERCAPTURE_MAX_PERCENT (20) above the authorized amount, else 409 \`OVERCAPTURE_LIMIT_EXCEEDED\` naming the largest tip; a processor that refuses it: 409 \`OVERCAPTURE_DECLINED\`. Either way the intent is unchanged and capturable. Not with \`amountToCapture\`.

If the processor refuses the capture, the intent stays REQUIRES_CAPTURE with \`lastPaymentError\` (200; it is voided when its capture window ends). If the processor does not answer: 503 with Retry-After, nothing recorded. Two captures racing capture once.\n\n${STATUS_TABLE_POINTER}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  body: { schema: capturePaymentIntentRequestSchema, optional: true },
  responses: { 200: { description: 'The intent after the capture.', schema: paymentIntentSchema } },
  errors: [
    'PAYMENT_INTENT_NOT_FOUND',
    'PAYMENT_INTENT_STATUS_CONFLICT',
    'OVERCAPTURE_LIMIT_EXCEEDED',
    'OVERCAPTURE_DECLINED',
    'CONFLICT',
    'PAYMENT_PROCESSOR_UNAVAILABLE',
  ],
  handle: async ({ write, params, body }, { checkout }) => ({
    status: 200,
    body: toPaymentIntent(await checkout.capture(write, params.id, body)),
  }),
});

export const cancelPaymentIntent = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/cancel',
  operationId: 'cancelPaymentIntent',
  tag,
  summary: 'Cancel a payment intent',
  description: `Moves the intent to CANCELED, with the optional \`cancellationReason\`; its session secret stops working at once. An authorized intent (REQUIRES_CAPTURE) is voided at the processor first (503 with Retry-After if it does not answer, nothing recorded). PROCESSING cannot be canceled: wait for the processor's answer.\n\n${STATUS_TABLE_POINTER}`,
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

export const checkoutOperations = [confirmPaymentIntent, capturePaymentIntent, cancelPaymentIntent];
