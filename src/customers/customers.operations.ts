import { pagingProse } from '../platform/validation/page-query';
import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import type { CustomersService } from './customers.service';
import {
  createCustomerRequestSchema,
  customerIdParamsSchema,
  CUSTOMER_CURSOR,
  customerListResponseSchema,
  customerResponseSchema,
  listCustomersQuerySchema,
  toCustomerResponse,
  updateCustomerRequestSchema,
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

export const listCustomers = operation({
  method: 'get',
  path: '/v1/customers',
  operationId: 'listCustomers',
  tag,
  summary: "List the location's customers",
  description: `Not in the spec. The location's customers. ${pagingProse('oldest first', CUSTOMER_CURSOR)} A walk never skips or repeats a customer that existed when it began, whatever is created (or erased) meanwhile. \`externalReferenceId\` finds the record an integration made for one of its own users (at most one: a location holds one customer per reference); none is an empty list, not a 404.`,
  access: { scope: SCOPE.customersRead },
  query: listCustomersQuerySchema,
  responses: { 200: { description: 'A page of customers.', schema: customerListResponseSchema } },
  errors: [],
  handle: async ({ db, location, query }, { customers }) => {
    const page = await customers.list(db, location, query);
    return { status: 200, body: { results: page.customers.length, customers: page.customers.map(toCustomerResponse), hasMore: page.hasMore } };
  },
});

export const updateCustomer = operation({
  method: 'patch',
  path: '/v1/customers/{id}',
  operationId: 'updateCustomer',
  tag,
  summary: 'Change a customer record',
  description:
    'Not in the spec. Changes the fields sent; a field sent as `null` is cleared, one left out stays. The limits are those of the create. An `externalReferenceId` another customer of the location holds is a 409 (`EXTERNAL_REFERENCE_IN_USE`) naming the field. Records a `customer.updated` event with the fields as they were; a change to nothing records none.',
  access: { scope: SCOPE.customersWrite },
  params: customerIdParamsSchema,
  body: { schema: updateCustomerRequestSchema },
  responses: { 200: { description: 'The customer after the change.', schema: customerResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'EXTERNAL_REFERENCE_IN_USE', 'CONFLICT'],
  handle: async ({ write, params, body }, { customers }) => ({
    status: 200,
    body: toCustomerResponse(await customers.update(write, params.id, body)),
  }),
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

export const customersOperations = [createCustomer, listCustomers, getCustomer, updateCustomer];
