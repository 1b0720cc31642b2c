import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { paymentIntentParamsSchema } from '../payment-intents';
import { pagingProse } from '../platform/validation/page-query';
import { listRefundsQuerySchema, REFUND_CURSOR, refundListResponseSchema, refundParamsSchema, refundSchema, toRefund } from './refunds.schemas';
import type { RefundsService } from './refunds.service';

/** The refunds' reads; a refund is made by the refunds flow's operation (src/flows/refunds). */
const operation = operationsOf<{ refunds: RefundsService }>();
const tag = 'Refunds';

export const listPaymentIntentRefunds = operation({
  method: 'get',
  path: '/v1/payment-intents/{id}/refunds',
  operationId: 'listPaymentIntentRefunds',
  tag,
  summary: "List a payment intent's refunds",
  description: `Not in the spec. The intent's refunds. ${pagingProse('newest first', REFUND_CURSOR)}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  query: listRefundsQuerySchema,
  responses: { 200: { description: 'A page of refunds.', schema: refundListResponseSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { refunds }) => {
    const page = await refunds.listOfIntent(db, location, params.id, query);
    return { status: 200, body: { results: page.refunds.length, refunds: page.refunds.map(toRefund), hasMore: page.hasMore } };
  },
});

export const getRefund = operation({
  method: 'get',
  path: '/v1/refunds/{id}',
  operationId: 'getRefund',
  tag,
  summary: 'Get a refund',
  description: 'Not in the spec. A refund of this location, as it stands: a PENDING one settles when the processor answers.',
  access: { scope: SCOPE.serverWrite },
  params: refundParamsSchema,
  responses: { 200: { description: 'The refund.', schema: refundSchema } },
  errors: ['REFUND_NOT_FOUND'],
  handle: async ({ db, location, params }, { refunds }) => ({ status: 200, body: toRefund(await refunds.get(db, location, params.id)) }),
});

export const refundsOperations = [listPaymentIntentRefunds, getRefund];
