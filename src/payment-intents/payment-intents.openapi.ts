import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { SCOPE } from '../auth/scopes';
import {
  createdResponse,
  creatingOperationHeaders,
  IDEMPOTENT_CREATE_ERRORS,
  locationAndSessionSecretHeaders,
  locationHeaders,
  securedBy,
} from '../api/operation-parts';
import { AUTHENTICATED_OPERATION_ERRORS, errorResponses, JSON_BODY_ERRORS, jsonResponse } from '../platform/openapi/response-parts';
import { FINAL_STATUSES, PAYMENT_INTENT_STATUSES, PAYMENT_INTENT_TRANSITIONS } from './payment-intent-status';
import { createPaymentIntentRequestSchema, paymentIntentParamsSchema, paymentIntentSchema } from './payment-intents.schemas';

const TAG = 'Payment intents';

/** The currencies the committed document shows: the service's default list. */
export const DOCUMENTED_CURRENCIES = ['USD', 'CAD'] as const;

/** The status table of payment-intent-status.ts, as Markdown. */
export function paymentIntentLifecycle(): string {
  const rows = PAYMENT_INTENT_STATUSES.map((status) => {
    const next = PAYMENT_INTENT_TRANSITIONS[status];
    return `| ${status} | ${next.length === 0 ? '(final)' : next.join(', ')} |`;
  });
  return [
    'A payment intent is created in REQUIRES_PAYMENT_METHOD. In this service only create and cancel move an intent; the other moves belong to the payment processor and are listed so that every status read back is explainable.',
    '',
    '| Status | May move to |',
    '|---|---|',
    ...rows,
    '',
    `Cancel is allowed from every status that may move to CANCELED; from ${FINAL_STATUSES.join(' or ')} it answers 409 (code 3002) naming the current status.`,
  ].join('\n');
}

export const paymentIntentsPaths: ZodOpenApiPathsObject = {
  '/v1/payment-intents': {
    post: {
      operationId: 'createPaymentIntent',
      tags: [TAG],
      summary: 'Create a payment intent',
      description: `Not in the spec: the hosted-checkout backend creates the intent before checkout and hands its \`sessionSecret\` to the browser side. Amounts are integers in the currency's minor unit (cents for USD); \`currency\` must be one of the configured currencies (default ${DOCUMENTED_CURRENCIES.join(', ')}). A \`customerId\` must be a customer of this location.\n\n${paymentIntentLifecycle()}`,
      security: securedBy(SCOPE.serverWrite),
      requestParams: { header: creatingOperationHeaders },
      requestBody: {
        required: true,
        content: { 'application/json': { schema: createPaymentIntentRequestSchema(DOCUMENTED_CURRENCIES) } },
      },
      responses: {
        '201': createdResponse('The new intent, in REQUIRES_PAYMENT_METHOD, with a new session secret.', paymentIntentSchema),
        ...errorResponses([...JSON_BODY_ERRORS, 'CUSTOMER_NOT_FOUND', 'CONFLICT', ...IDEMPOTENT_CREATE_ERRORS, ...AUTHENTICATED_OPERATION_ERRORS]),
      },
    },
  },
  '/v1/payment-intents/{id}': {
    get: {
      operationId: 'getPaymentIntent',
      tags: [TAG],
      summary: 'Get a payment intent',
      description:
        "The spec's operation 6. The server side reads with `simplified-payments-integration.server:write`; the browser side may read its own intent with a token holding only `simplified-payments-integration:read` and the intent's own `Platform-Session-Secret`. An intent of another location is a 404 (the spec lists no 404; an unknown id needs one).",
      security: securedBy(SCOPE.serverWrite, SCOPE.integrationRead),
      requestParams: { header: locationAndSessionSecretHeaders, path: paymentIntentParamsSchema },
      responses: {
        '200': jsonResponse('The payment intent.', paymentIntentSchema),
        ...errorResponses(['VALIDATION_FAILED', 'SESSION_SECRET_INVALID', 'PAYMENT_INTENT_NOT_FOUND', ...AUTHENTICATED_OPERATION_ERRORS]),
      },
    },
  },
  '/v1/payment-intents/{id}/cancel': {
    post: {
      operationId: 'cancelPaymentIntent',
      tags: [TAG],
      summary: 'Cancel a payment intent',
      description: `Moves the intent to CANCELED; its session secret stops working at once.\n\n${paymentIntentLifecycle()}`,
      security: securedBy(SCOPE.serverWrite),
      requestParams: { header: locationHeaders, path: paymentIntentParamsSchema },
      responses: {
        '200': jsonResponse('The canceled intent.', paymentIntentSchema),
        ...errorResponses([
          'VALIDATION_FAILED',
          'PAYMENT_INTENT_NOT_FOUND',
          'PAYMENT_INTENT_STATUS_CONFLICT',
          'CONFLICT',
          ...AUTHENTICATED_OPERATION_ERRORS,
        ]),
      },
    },
  },
};
