import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { customerIdParamsSchema } from '../customers';
import type { PaymentMethodsService } from './payment-methods.service';
import {
  createPaymentMethodRequestSchema,
  customerPaymentMethodsResponseSchema,
  defaultPaymentMethodParamsSchema,
  defaultPaymentMethodResponseSchema,
  paymentMethodDataSchema,
  paymentMethodParamsSchema,
  listPaymentMethodsQuerySchema,
  setDefaultPaymentMethodRequestSchema,
  toPaymentMethodData,
  updatePaymentMethodRequestSchema,
} from './payment-methods.schemas';

const operation = operationsOf<{ paymentMethods: PaymentMethodsService }>();
const tag = 'Payment methods';

const BROWSER_READ_NOTE =
  'The browser side of a hosted checkout may call this with a token holding only `simplified-payments-integration:read` and the `Platform-Session-Secret` of a live payment intent for this customer; the server side uses `spi.customers:read`.';

/** The browser side may read the cards and defaults of its intent's customer. */
const customerRead = { scope: SCOPE.customersRead, sessionSecret: { param: 'id', is: 'customerId' } } as const;

export const listCustomerPaymentMethods = operation({
  method: 'get',
  path: '/v1/customers/{id}/payment-methods',
  operationId: 'listCustomerPaymentMethods',
  tag,
  summary: "Get a customer's payment methods",
  description: `The cards saved to the customer record, oldest first; with \`expiringBefore=YYYY-MM\`, only those whose expiry month is before it (whom to ask for a renewed card). ${BROWSER_READ_NOTE}`,
  access: customerRead,
  params: customerIdParamsSchema,
  query: listPaymentMethodsQuerySchema,
  responses: { 200: { description: 'The saved payment methods.', schema: customerPaymentMethodsResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { paymentMethods }) => {
    const cards = await paymentMethods.list(db, location, params.id, query.expiringBefore);
    return { status: 200, body: { results: cards.length, paymentMethods: cards.map(toPaymentMethodData) } };
  },
});

export const saveCustomerPaymentMethod = operation({
  method: 'post',
  path: '/v1/customers/{id}/payment-methods',
  operationId: 'saveCustomerPaymentMethod',
  tag,
  summary: 'Save a card to a customer',
  description:
    "Not in the spec: how the card vault hands over a saved card's metadata (brand, last four, expiry; never the number or CVV: a body containing anything that looks like a full card number is refused with `CARD_NUMBER_REJECTED` and the value is never echoed or logged). Saving a card with a `fingerprint` already saved to this customer updates that card and answers 200; a new card answers 201. A customer holds at most 50 cards (MAX_CARDS_PER_CUSTOMER may lower it): one more is a 409 (CARD_LIMIT_REACHED), while updating a saved card by its fingerprint still works.",
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: customerIdParamsSchema,
  body: { schema: createPaymentMethodRequestSchema },
  responses: {
    200: { description: 'The card was already saved (same fingerprint) and is updated.', schema: paymentMethodDataSchema },
    201: { description: 'The card is saved.', schema: paymentMethodDataSchema },
  },
  errors: ['CUSTOMER_NOT_FOUND', 'CARD_LIMIT_REACHED', 'CONFLICT'],
  handle: async ({ write, params, body }, { paymentMethods }) => {
    const { paymentMethod, created } = await paymentMethods.save(write, params.id, body);
    return { status: created ? 201 : 200, body: toPaymentMethodData(paymentMethod) };
  },
});

export const updateCustomerPaymentMethod = operation({
  method: 'patch',
  path: '/v1/customers/{id}/payment-methods/{paymentMethodId}',
  operationId: 'updateCustomerPaymentMethod',
  tag,
  summary: 'Update a saved card (the vault renewed it)',
  description:
    "Not in the spec. The card vault's update of a saved card: the create's shape, every part optional (a renewed card: new `expiry`, possibly new `lastFour` and `fingerprint`). The card keeps its id and every default bound to it. The brand cannot change (another brand is another card: save it); a `fingerprint` another card of the customer holds is a 409 (`FINGERPRINT_IN_USE`). A `payment_method.updated` event records the answered fields as they were.",
  access: { scope: SCOPE.serverWrite },
  params: paymentMethodParamsSchema,
  body: { schema: updatePaymentMethodRequestSchema },
  responses: { 200: { description: 'The card after the update.', schema: paymentMethodDataSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'PAYMENT_METHOD_NOT_FOUND', 'PAYMENT_METHOD_NOT_OWNED', 'FINGERPRINT_IN_USE', 'CONFLICT'],
  handle: async ({ write, params, body }, { paymentMethods }) => ({
    status: 200,
    body: toPaymentMethodData(await paymentMethods.update(write, params.id, params.paymentMethodId, body)),
  }),
});

export const deleteCustomerPaymentMethod = operation({
  method: 'delete',
  path: '/v1/customers/{id}/payment-methods/{paymentMethodId}',
  operationId: 'deleteCustomerPaymentMethod',
  tag,
  summary: 'Delete a saved card',
  description: 'Not in the spec. Removes the card and, in the same transaction, every default it was bound to.',
  access: { scope: SCOPE.serverWrite },
  params: paymentMethodParamsSchema,
  responses: { 204: { description: 'The card and its default bindings are gone.' } },
  errors: ['CUSTOMER_NOT_FOUND', 'PAYMENT_METHOD_NOT_FOUND', 'PAYMENT_METHOD_NOT_OWNED', 'CONFLICT'],
  handle: async ({ write, params }, { paymentMethods }) => {
    await paymentMethods.remove(write, params.id, params.paymentMethodId);
    return { status: 204, body: undefined };
  },
});

export const setDefaultPaymentMethod = operation({
  method: 'post',
  path: '/v1/customers/{id}/payment-methods/defaults',
  operationId: 'setDefaultPaymentMethod',
  tag,
  summary: 'Set a default payment method',
  description:
    "Makes a saved card the customer's default for a context name (one default per context; setting another replaces it). Setting the same card again is a no-op that answers 200.",
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: customerIdParamsSchema,
  body: { schema: setDefaultPaymentMethodRequestSchema },
  responses: { 200: { description: 'The default for the context.', schema: defaultPaymentMethodResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'PAYMENT_METHOD_NOT_FOUND', 'PAYMENT_METHOD_NOT_OWNED', 'CONFLICT'],
  handle: async ({ write, params, body }, { paymentMethods }) => ({
    status: 200,
    body: await paymentMethods.setDefault(write, params.id, body),
  }),
});

export const getDefaultPaymentMethod = operation({
  method: 'get',
  path: '/v1/customers/{id}/payment-methods/defaults/{contextName}',
  operationId: 'getDefaultPaymentMethod',
  tag,
  summary: 'Get the default payment method',
  description: `The default card for a context name. ${BROWSER_READ_NOTE}`,
  access: customerRead,
  params: defaultPaymentMethodParamsSchema,
  responses: { 200: { description: 'The default for the context.', schema: defaultPaymentMethodResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'DEFAULT_PAYMENT_METHOD_NOT_SET'],
  handle: async ({ db, location, params }, { paymentMethods }) => ({
    status: 200,
    body: await paymentMethods.getDefault(db, location, params.id, params.contextName),
  }),
});

export const deleteDefaultPaymentMethod = operation({
  method: 'delete',
  path: '/v1/customers/{id}/payment-methods/defaults/{contextName}',
  operationId: 'deleteDefaultPaymentMethod',
  tag,
  summary: 'Delete the default payment method',
  description: 'Removes the default for a context name and answers the binding that was removed. The card itself stays saved.',
  access: { scope: SCOPE.serverWrite },
  params: defaultPaymentMethodParamsSchema,
  responses: { 200: { description: 'The default that was removed.', schema: defaultPaymentMethodResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'DEFAULT_PAYMENT_METHOD_NOT_SET', 'CONFLICT'],
  handle: async ({ write, params }, { paymentMethods }) => ({
    status: 200,
    body: await paymentMethods.removeDefault(write, params.id, params.contextName),
  }),
});

export const paymentMethodsOperations = [
  listCustomerPaymentMethods,
  saveCustomerPaymentMethod,
  updateCustomerPaymentMethod,
  deleteCustomerPaymentMethod,
  setDefaultPaymentMethod,
  getDefaultPaymentMethod,
  deleteDefaultPaymentMethod,
];
