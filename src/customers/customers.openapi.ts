import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { SCOPE } from '../auth/scopes';
import {
  createdResponse,
  creatingOperationHeaders,
  IDEMPOTENT_CREATE_ERRORS,
  locationHeaders,
  securedBy,
} from '../api/operation-parts';
import { AUTHENTICATED_OPERATION_ERRORS, errorResponses, JSON_BODY_ERRORS, jsonResponse } from '../platform/openapi/response-parts';
import {
  createCustomerRequestSchema,
  customerIdParamsSchema,
  customerListResponseSchema,
  customerResponseSchema,
  findCustomersQuerySchema,
  MAX_CUSTOMERS_PER_LOOKUP,
} from './customers.schemas';

export const customersPaths: ZodOpenApiPathsObject = {
  '/v1/customers': {
    post: {
      operationId: 'createCustomer',
      tags: ['Customers'],
      summary: 'Create a customer record',
      description:
        'Creates a record of a payor (the person or organization that pays; not a restaurant guest). Its `id` can be used to create a payment intent. Both fields are optional; an omitted field, or `null`, is stored as `null`. The body is read as JSON whatever its Content-Type says (the spec declares a wildcard media type); no body at all creates an empty record.',
      security: securedBy(SCOPE.customersWrite),
      requestParams: { header: creatingOperationHeaders },
      requestBody: { required: false, content: { '*/*': { schema: createCustomerRequestSchema } } },
      responses: {
        '200': createdResponse('The new customer record.', customerResponseSchema),
        ...errorResponses([...JSON_BODY_ERRORS, 'CONFLICT', ...IDEMPOTENT_CREATE_ERRORS, ...AUTHENTICATED_OPERATION_ERRORS]),
      },
    },
    get: {
      operationId: 'findCustomers',
      tags: ['Customers'],
      summary: 'Find customers by externalReferenceId',
      description: `Not in the spec: lets an integration find the record it made for one of its own users. Answers the location's customers with exactly that externalReferenceId, oldest first, at most ${MAX_CUSTOMERS_PER_LOOKUP}; none is an empty list, not a 404.`,
      security: securedBy(SCOPE.customersRead),
      requestParams: { header: locationHeaders, query: findCustomersQuerySchema },
      responses: {
        '200': jsonResponse('The matching customers.', customerListResponseSchema),
        ...errorResponses(['VALIDATION_FAILED', ...AUTHENTICATED_OPERATION_ERRORS]),
      },
    },
  },
  '/v1/customers/{id}': {
    get: {
      operationId: 'getCustomer',
      tags: ['Customers'],
      summary: 'Read a customer record',
      description: 'Not in the spec. A customer of another location is a 404, never a 403: other locations\u2019 ids are not revealed.',
      security: securedBy(SCOPE.customersRead),
      requestParams: { header: locationHeaders, path: customerIdParamsSchema },
      responses: {
        '200': jsonResponse('The customer record.', customerResponseSchema),
        ...errorResponses(['VALIDATION_FAILED', 'CUSTOMER_NOT_FOUND', ...AUTHENTICATED_OPERATION_ERRORS]),
      },
    },
  },
};
