import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { customerIdParamsSchema } from '../customers';
import type { MandatesService } from './mandates.service';
import { pagingProse } from '../platform/validation/page-query';
import {
  MANDATE_CURSOR,
  createMandateRequestSchema,
  listMandatesQuerySchema,
  mandateListResponseSchema,
  mandateParamsSchema,
  mandateSchema,
  toMandate,
} from './mandates.schemas';

const operation = operationsOf<{ mandates: MandatesService }>();
const tag = 'Mandates';

export const createMandate = operation({
  method: 'post',
  path: '/v1/customers/{id}/mandates',
  operationId: 'createMandate',
  tag,
  summary: "Record a payor's consent to later charges",
  description:
    "Not in the spec. Records the payor's consent to be charged later on one of the customer's saved cards, as card networks require before a merchant-initiated charge: when they agreed (`consent.acceptedAt`, not in the future), which agreement text (`consent.textVersion`), and optionally where (`channel`, `ipAddress`, `userAgent`). The mandate is ACTIVE: a payment intent with `offSession: true` names it in `mandateId`, up to its `maxAmount` per charge. See docs/cards-on-file.md.",
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: customerIdParamsSchema,
  body: { schema: createMandateRequestSchema },
  responses: { 201: { description: 'The mandate, ACTIVE.', schema: mandateSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'PAYMENT_METHOD_NOT_FOUND'],
  handle: async ({ write, params, body }, { mandates }) => ({ status: 201, body: toMandate(await mandates.create(write, params.id, body)) }),
});

export const listMandates = operation({
  method: 'get',
  path: '/v1/customers/{id}/mandates',
  operationId: 'listMandates',
  tag,
  summary: "List a customer's mandates",
  description: `Not in the spec. ACTIVE and INACTIVE alike. ${pagingProse('newest first', MANDATE_CURSOR)}`,
  access: { scope: SCOPE.serverWrite },
  params: customerIdParamsSchema,
  query: listMandatesQuerySchema,
  responses: { 200: { description: 'A page of mandates.', schema: mandateListResponseSchema } },
  errors: ['CUSTOMER_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { mandates }) => {
    const page = await mandates.list(db, location, params.id, query);
    return { status: 200, body: { results: page.mandates.length, mandates: page.mandates.map(toMandate), hasMore: page.hasMore } };
  },
});

export const getMandate = operation({
  method: 'get',
  path: '/v1/customers/{id}/mandates/{mandateId}',
  operationId: 'getMandate',
  tag,
  summary: 'Get a mandate',
  description: "Not in the spec. One of the customer's mandates, as it stands.",
  access: { scope: SCOPE.serverWrite },
  params: mandateParamsSchema,
  responses: { 200: { description: 'The mandate.', schema: mandateSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'MANDATE_NOT_FOUND'],
  handle: async ({ db, location, params }, { mandates }) => ({ status: 200, body: toMandate(await mandates.get(db, location, params.id, params.mandateId)) }),
});

export const revokeMandate = operation({
  method: 'post',
  path: '/v1/customers/{id}/mandates/{mandateId}/revoke',
  operationId: 'revokeMandate',
  tag,
  summary: 'Revoke a mandate',
  description:
    'Not in the spec. The mandate becomes INACTIVE for good (`revokedAt`), with a `mandate.revoked` event: an intent naming it is refused from now on (409 MANDATE_INACTIVE). Revoking an INACTIVE mandate answers it as it is. When the payor had removed its card, the card goes for good with the last ACTIVE mandate that kept it.',
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: mandateParamsSchema,
  responses: { 200: { description: 'The mandate, INACTIVE.', schema: mandateSchema } },
  errors: ['CUSTOMER_NOT_FOUND', 'MANDATE_NOT_FOUND'],
  handle: async ({ write, params }, { mandates }) => ({ status: 200, body: toMandate(await mandates.revoke(write, params.id, params.mandateId)) }),
});

export const mandatesOperations = [createMandate, listMandates, getMandate, revokeMandate];
