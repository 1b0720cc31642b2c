import { operationsOf } from '../../api/operation';
import { SCOPE } from '../../auth/scopes';
import { customerDeletedResponseSchema, customerIdParamsSchema } from '../../customers';
import type { CustomerErasureFlow } from './customer-erasure.flow';

/** The operation that starts the customer erasure flow. */
const operation = operationsOf<{ customerErasure: CustomerErasureFlow }>();

export const eraseCustomer = operation({
  method: 'delete',
  path: '/v1/customers/{id}',
  operationId: 'eraseCustomer',
  tag: 'Customers',
  summary: 'Erase a customer (GDPR Article 17)',
  description:
    "Not in the spec. In one transaction: every saved card and default of the customer removed; every intent of the customer cut from it and stripped of its `email`, and those that can still move canceled; every intent that was the customer's before (detached, or given to another customer) stripped of its `email` too; the personal fields (`externalReferenceId`, `description`, an intent's `email`) of its events, and of every event of those intents whatever customer it names (one recorded before the intent was attached to it, or after it was detached; `previous` included), nulled; ids are kept (pseudonymous); its ACTIVE mandates revoked (each with a `mandate.revoked` event) and every mandate's consent stripped of its `ipAddress` and `userAgent` (events included; the rest of the consent is kept as the record that it was given); its disputes cut from it and their evidence stripped of the payor's name, e-mail and document URLs (events included; amounts, dates, statuses and the documents' types and hashes kept as financial records); stored Idempotency-Key answers naming it or its intents forgotten; then the record itself. Afterwards no row holds its reference, description or intents' e-mails. Records the events of each removal and one `customer.deleted` without personal data. A second erase is a 404; the id is never reused.",
  access: { scope: SCOPE.customersWrite },
  params: customerIdParamsSchema,
  responses: { 200: { description: 'The customer is erased.', schema: customerDeletedResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'CONFLICT'],
  handle: async ({ write, params }, { customerErasure }) => {
    await customerErasure.erase(write, params.id);
    return { status: 200, body: { id: params.id, deleted: true as const } };
  },
});

export const customerErasureOperations = [eraseCustomer];
