import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { paymentIntentParamsSchema, STATUS_TABLE_POINTER } from '../payment-intents';
import { REFUND_FAILS_LAST_FOUR, REFUND_LATER_LAST_FOUR } from '../payment-processor/sandbox-cards';
import { refundLifecycle } from './refund-status';
import { pagingProse } from '../platform/validation/page-query';
import {
  createRefundRequestSchema,
  listRefundsQuerySchema,
  REFUND_CURSOR,
  refundListResponseSchema,
  refundParamsSchema,
  refundSchema,
  toRefund,
} from './refunds.schemas';
import type { RefundsService } from './refunds.service';

/** A refund made (it asks the processor), read, and an intent's refunds listed: one home, src/refunds. */
const operation = operationsOf<{ refunds: RefundsService }>();
const tag = 'Refunds';

export const createRefund = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/refunds',
  operationId: 'createRefund',
  tag,
  summary: 'Refund a captured payment intent, in part or in full',
  description: `Not in the spec; Stripe's and Adyen's model (Toast's hosted checkout has none). Refunds \`amount\` (all of \`refundableAmount\` when left out) of a SUCCEEDED intent within REFUND_WINDOW_DAYS (90) of its capture, else 409 \`REFUND_WINDOW_CLOSED\`. Several refunds while their sum stays within \`amountCaptured\`, however requests race (PENDING ones count): more than is left is 409 \`REFUND_EXCEEDS_CAPTURED\`, naming what is left. A chargeback holds its amount (\`amountDisputed\`): a refund asking for more than it leaves is 409 \`REFUND_BLOCKED_BY_DISPUTE\`, naming what is left; an inquiry holds nothing, and a refund that leaves nothing to refund closes it (closed by REFUND). Server side only.

Recorded PENDING, then the processor is asked: 201 with the refund after its answer (SUCCEEDED, FAILED with \`failureCode\`, its amount refundable again, or still PENDING when it answers later; the service asks again every second). A retry with the same Idempotency-Key answers the refund as it stands then.

${refundLifecycle()}

The sandbox processor decides by the card the intent was paid with (the confirm operation's table of test cards): \`${REFUND_FAILS_LAST_FOUR}\` fails every refund, \`${REFUND_LATER_LAST_FOUR}\` answers them later.

${STATUS_TABLE_POINTER}`,
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: paymentIntentParamsSchema,
  body: { schema: createRefundRequestSchema, optional: true },
  responses: { 201: { description: "The refund, after the processor's answer (PENDING if it answers later).", schema: refundSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND', 'PAYMENT_INTENT_STATUS_CONFLICT', 'REFUND_EXCEEDS_CAPTURED', 'REFUND_BLOCKED_BY_DISPUTE', 'REFUND_WINDOW_CLOSED'],
  handle: async ({ write, params, body }, { refunds }) => ({ status: 201, body: toRefund(await refunds.create(write, params.id, body)) }),
  afterCommit: async ({ write, answer }, { refunds }) => ({
    status: 201,
    body: toRefund(await refunds.settle(write, await refunds.get(write.db, write.locationId, String(answer.id)))),
  }),
});

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

export const refundsOperations = [createRefund, listPaymentIntentRefunds, getRefund];
