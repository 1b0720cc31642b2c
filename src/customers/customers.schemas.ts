import { z } from 'zod';
import { pageOf, pageQuery } from '../platform/validation/page-query';
import { identifierText, safeText, uuidValue } from '../platform/validation/text.schemas';
import type { CustomerRecord } from './customers.repository';

const externalReferenceId = identifierText({
  max: 255,
  description: "The customer's identity in the caller's own integration. Any value: a primary key, a UUID, an e-mail address, etc.",
});
const description = safeText({ max: 1024, allowLineBreaks: true }).meta({
  description: 'A brief description of the customer, such as an e-mail address, name or phone number.',
});

/** Both fields are optional; an explicit null means the same as leaving one out. */
export const createCustomerRequestSchema = z
  .strictObject({
    externalReferenceId: externalReferenceId.nullish(),
    description: description.nullish(),
  })
  .meta({ id: 'CreateCustomerRequest', example: { externalReferenceId: 'crm-42', description: 'ada@example.com' } });

export type CreateCustomerInput = z.output<typeof createCustomerRequestSchema>;

/** The `{id}` of every path under /v1/customers/{id}: one parameter of the document, referred to by each. */
export const customerIdPathParameter = uuidValue.meta({ description: 'The customer record.', param: { id: 'CustomerId' } });

export const customerIdParamsSchema = z.object({ id: customerIdPathParameter });

export const listCustomersQuerySchema = z.object({
  ...pageQuery({ items: 'Customers', item: 'customer' }, 'oldest first', '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9'),
  externalReferenceId: identifierText({
    min: 1,
    max: 255,
    description: "Only the customer with this identifier in the caller's integration (a location holds at most one).",
  })
    .optional()
    .meta({ example: 'crm-42' }),
});

/** Both fields optional: a field left out stays as it is, a field sent as `null` is cleared. */
export const updateCustomerRequestSchema = z
  .strictObject({
    externalReferenceId: externalReferenceId.nullish(),
    description: description.nullish(),
  })
  .meta({ id: 'UpdateCustomerRequest', example: { description: 'ada.lovelace@example.com' } });

export type UpdateCustomerInput = z.output<typeof updateCustomerRequestSchema>;

const CUSTOMER_EXAMPLE = { id: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9', externalReferenceId: 'crm-42', description: 'ada@example.com' };

export const customerResponseSchema = z
  .strictObject({
    id: z.uuid().meta({ description: "The customer record's identifier. It can be used to create a payment intent." }),
    externalReferenceId: z.string().nullable().meta({ description: "The customer's identifier in the caller's integration." }),
    description: z.string().nullable().meta({ description: 'The brief description of the customer.' }),
  })
  .meta({ id: 'CustomerResponse', example: CUSTOMER_EXAMPLE });

/** What a customers list's `startingAfter` must be (its description and its 400 say the same). */
export const CUSTOMER_CURSOR = 'a customer of this location or one erased since';

export const customerListResponseSchema = pageOf(
  'customers',
  customerResponseSchema,
  { items: 'customers', order: 'Oldest first' },
  { id: 'CustomerListResponse', example: { results: 1, customers: [CUSTOMER_EXAMPLE], hasMore: false } },
);

export type CustomerResponse = z.infer<typeof customerResponseSchema>;

export function toCustomerResponse(customer: CustomerRecord): CustomerResponse {
  return { id: customer.id, externalReferenceId: customer.externalReferenceId, description: customer.description };
}

export const customerDeletedResponseSchema = z
  .strictObject({
    id: z.uuid().meta({ description: 'The erased customer.' }),
    deleted: z.literal(true),
  })
  .meta({ id: 'CustomerDeletedResponse', example: { id: CUSTOMER_EXAMPLE.id, deleted: true } });
