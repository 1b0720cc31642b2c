import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import type { CustomersService } from './customers.service';
import {
  createCustomerRequestSchema,
  customerIdParamsSchema,
  customerListResponseSchema,
  customerResponseSchema,
  findCustomersQuerySchema,
  toCustomerResponse,
} from './customers.schemas';

const operation = operationsOf<{ customers: CustomersService }>();
const tag = 'Customers';

export const createCustomer = operation({
  method: 'post',
  path: '/v1/customers',
  operationId: 'createCustomer',
  tag,
  summary: 'Create a customer record',
  description:
    'Creates a record of a payor (the person or organization that pays; not a restaurant guest). Its `id` can be used to create a payment intent. Both fields are optional; an omitted field, or `null`, is stored as `null`. The body is read as JSON whatever its Content-Type says (the spec declares a wildcard media type); no body at all creates an empty record.\n\n**One customer per `externalReferenceId`** within a location (as Toast): a create with a reference that a customer of the location already holds creates nothing and answers 200 with that customer, unchanged (its `description` is not updated). Concurrent creates with one reference make one customer and all answer it.',
  access: { scope: SCOPE.customersWrite },
  idempotent: true,
  // The spec declares this body with a wildcard media type.
  body: { schema: createCustomerRequestSchema, anyContentType: true, optional: true },
  responses: { 200: { description: 'The new customer record.', schema: customerResponseSchema } },
  errors: ['CONFLICT'],
  handle: async ({ write, body }, { customers }) => ({
    status: 200,
    body: toCustomerResponse((await customers.create(write, body)).customer),
  }),
});

export const findCustomers = operation({
  method: 'get',
  path: '/v1/customers',
  operationId: 'findCustomers',
  tag,
  summary: 'Find customers by externalReferenceId',
  description:
    "Not in the spec: lets an integration find the record it made for one of its own users. Answers the location's customer with exactly that externalReferenceId, as a list of at most one (a location holds one customer per reference); none is an empty list, not a 404.",
  access: { scope: SCOPE.customersRead },
  query: findCustomersQuerySchema,
  responses: { 200: { description: 'The matching customers.', schema: customerListResponseSchema } },
  errors: [],
  handle: async ({ db, location, query }, { customers }) => {
    const found = await customers.findByExternalReference(db, location, query.externalReferenceId);
    return { status: 200, body: found === undefined ? { results: 0, customers: [] } : { results: 1, customers: [toCustomerResponse(found)] } };
  },
});

export const getCustomer = operation({
  method: 'get',
  path: '/v1/customers/{id}',
  operationId: 'getCustomer',
  tag,
  summary: 'Read a customer record',
  description: 'Not in the spec. A customer of another location is a 404, never a 403: other locations\u2019 ids are not revealed.',
  access: { scope: SCOPE.customersRead },
  params: customerIdParamsSchema,
  responses: { 200: { description: 'The customer record.', schema: customerResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND'],
  handle: async ({ db, location, params }, { customers }) => ({
    status: 200,
    body: toCustomerResponse(await customers.get(db, location, params.id)),
  }),
});

export const customersOperations = [createCustomer, findCustomers, getCustomer];
