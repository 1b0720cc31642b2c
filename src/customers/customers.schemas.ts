import { z } from 'zod';
import { int32 } from '../platform/validation/int32';
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

export const customerIdParamsSchema = z.object({
  id: uuidValue.meta({ description: 'The customer record.' }),
});

export const findCustomersQuerySchema = z.object({
  externalReferenceId: identifierText({ min: 1, max: 255, description: "The customer's identifier in the caller's integration." }).meta({
    example: 'crm-42',
  }),
});

const CUSTOMER_EXAMPLE = { id: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9', externalReferenceId: 'crm-42', description: 'ada@example.com' };

export const customerResponseSchema = z
  .strictObject({
    id: z.uuid().meta({ description: "The customer record's identifier. It can be used to create a payment intent." }),
    externalReferenceId: z.string().nullable().meta({ description: "The customer's identifier in the caller's integration." }),
    description: z.string().nullable().meta({ description: 'The brief description of the customer.' }),
  })
  .meta({ id: 'CustomerResponse', example: CUSTOMER_EXAMPLE });

export const customerListResponseSchema = z
  .strictObject({
    results: int32(0, 1).meta({ description: 'Number of customers in `customers`: 0 or 1.' }),
    customers: z.array(customerResponseSchema).max(1).meta({
      description: 'The customer with that externalReferenceId, if the location has one: a location holds at most one per reference.',
    }),
  })
  .meta({ id: 'CustomerListResponse', example: { results: 1, customers: [CUSTOMER_EXAMPLE] } });

export type CustomerResponse = z.infer<typeof customerResponseSchema>;

export function toCustomerResponse(customer: CustomerRecord): CustomerResponse {
  return { id: customer.id, externalReferenceId: customer.externalReferenceId, description: customer.description };
}
