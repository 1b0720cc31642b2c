import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { SCOPE } from '../auth/scopes';
import { customerIdParamsSchema } from '../customers/customers.schemas';
import {
  createdResponse,
  creatingOperationHeaders,
  IDEMPOTENT_CREATE_ERRORS,
  locationAndSessionSecretHeaders,
  locationHeaders,
  securedBy,
} from '../api/operation-parts';
import { AUTHENTICATED_OPERATION_ERRORS, errorResponses, JSON_BODY_ERRORS, jsonResponse } from '../platform/openapi/response-parts';
import {
  createPaymentMethodRequestSchema,
  customerPaymentMethodsResponseSchema,
  defaultPaymentMethodParamsSchema,
  defaultPaymentMethodResponseSchema,
  paymentMethodDataSchema,
  paymentMethodParamsSchema,
  setDefaultPaymentMethodRequestSchema,
} from './payment-methods.schemas';

const TAG = 'Payment methods';
const SESSION_SECRET_ERRORS = ['SESSION_SECRET_INVALID'] as const;

const BROWSER_READ_NOTE =
  'The browser side of a hosted checkout may call this with a token holding only `simplified-payments-integration:read` and the `Platform-Session-Secret` of a live payment intent for this customer; the server side uses `spi.customers:read`.';

export const paymentMethodsPaths: ZodOpenApiPathsObject = {
  '/v1/customers/{id}/payment-methods': {
    get: {
      operationId: 'listCustomerPaymentMethods',
      tags: [TAG],
      summary: "Get a customer's payment methods",
      description: `The cards saved to the customer record, oldest first. ${BROWSER_READ_NOTE}`,
      security: securedBy(SCOPE.customersRead, SCOPE.integrationRead),
      requestParams: { header: locationAndSessionSecretHeaders, path: customerIdParamsSchema },
      responses: {
        '200': jsonResponse('The saved payment methods.', customerPaymentMethodsResponseSchema),
        ...errorResponses(['VALIDATION_FAILED', ...SESSION_SECRET_ERRORS, 'CUSTOMER_NOT_FOUND', ...AUTHENTICATED_OPERATION_ERRORS]),
      },
    },
    post: {
      operationId: 'saveCustomerPaymentMethod',
      tags: [TAG],
      summary: 'Save a card to a customer',
      description:
        "Not in the spec: how the card vault hands over a saved card's metadata (brand, last four, expiry; never the number or CVV: a body containing anything that looks like a full card number is refused with code 1004 and the value is never echoed or logged). Saving a card with a `fingerprint` already saved to this customer updates that card and answers 200; a new card answers 201.",
      security: securedBy(SCOPE.serverWrite),
      requestParams: { header: creatingOperationHeaders, path: customerIdParamsSchema },
      requestBody: { required: true, content: { 'application/json': { schema: createPaymentMethodRequestSchema } } },
      responses: {
        '200': createdResponse('The card was already saved (same fingerprint) and is updated.', paymentMethodDataSchema),
        '201': createdResponse('The card is saved.', paymentMethodDataSchema),
        ...errorResponses([
          ...JSON_BODY_ERRORS,
          'CUSTOMER_NOT_FOUND',
          'CONFLICT',
          ...IDEMPOTENT_CREATE_ERRORS,
          ...AUTHENTICATED_OPERATION_ERRORS,
        ]),
      },
    },
  },
  '/v1/customers/{id}/payment-methods/{paymentMethodId}': {
    delete: {
      operationId: 'deleteCustomerPaymentMethod',
      tags: [TAG],
      summary: 'Delete a saved card',
      description: 'Not in the spec. Removes the card and, in the same transaction, every default it was bound to.',
      security: securedBy(SCOPE.serverWrite),
      requestParams: { header: locationHeaders, path: paymentMethodParamsSchema },
      responses: {
        '204': { description: 'The card and its default bindings are gone.' },
        ...errorResponses([
          'VALIDATION_FAILED',
          'CUSTOMER_NOT_FOUND',
          'PAYMENT_METHOD_NOT_FOUND',
          'PAYMENT_METHOD_NOT_OWNED',
          'CONFLICT',
          ...AUTHENTICATED_OPERATION_ERRORS,
        ]),
      },
    },
  },
  '/v1/customers/{id}/payment-methods/defaults': {
    post: {
      operationId: 'setDefaultPaymentMethod',
      tags: [TAG],
      summary: 'Set a default payment method',
      description:
        "Makes a saved card the customer's default for a context name (one default per context; setting another replaces it). Setting the same card again is a no-op that answers 200.",
      security: securedBy(SCOPE.serverWrite),
      requestParams: { header: creatingOperationHeaders, path: customerIdParamsSchema },
      requestBody: { required: true, content: { 'application/json': { schema: setDefaultPaymentMethodRequestSchema } } },
      responses: {
        '200': createdResponse('The default for the context.', defaultPaymentMethodResponseSchema),
        ...errorResponses([
          ...JSON_BODY_ERRORS,
          'CUSTOMER_NOT_FOUND',
          'PAYMENT_METHOD_NOT_FOUND',
          'PAYMENT_METHOD_NOT_OWNED',
          'CONFLICT',
          ...IDEMPOTENT_CREATE_ERRORS,
          ...AUTHENTICATED_OPERATION_ERRORS,
        ]),
      },
    },
  },
  '/v1/customers/{id}/payment-methods/defaults/{contextName}': {
    get: {
      operationId: 'getDefaultPaymentMethod',
      tags: [TAG],
      summary: 'Get the default payment method',
      description: `The default card for a context name. ${BROWSER_READ_NOTE}`,
      security: securedBy(SCOPE.customersRead, SCOPE.integrationRead),
      requestParams: { header: locationAndSessionSecretHeaders, path: defaultPaymentMethodParamsSchema },
      responses: {
        '200': jsonResponse('The default for the context.', defaultPaymentMethodResponseSchema),
        ...errorResponses([
          'VALIDATION_FAILED',
          ...SESSION_SECRET_ERRORS,
          'CUSTOMER_NOT_FOUND',
          'DEFAULT_PAYMENT_METHOD_NOT_SET',
          ...AUTHENTICATED_OPERATION_ERRORS,
        ]),
      },
    },
    delete: {
      operationId: 'deleteDefaultPaymentMethod',
      tags: [TAG],
      summary: 'Delete the default payment method',
      description: 'Removes the default for a context name and answers the binding that was removed. The card itself stays saved.',
      security: securedBy(SCOPE.serverWrite),
      requestParams: { header: locationHeaders, path: defaultPaymentMethodParamsSchema },
      responses: {
        '200': jsonResponse('The default that was removed.', defaultPaymentMethodResponseSchema),
        ...errorResponses([
          'VALIDATION_FAILED',
          'CUSTOMER_NOT_FOUND',
          'DEFAULT_PAYMENT_METHOD_NOT_SET',
          'CONFLICT',
          ...AUTHENTICATED_OPERATION_ERRORS,
        ]),
      },
    },
  },
};
