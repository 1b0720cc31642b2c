import { operationsOf } from '../../api/operation';
import { SCOPE } from '../../auth/scopes';
import { paymentIntentParamsSchema, STATUS_TABLE_POINTER } from '../../payment-intents';
import { REFUND_FAILS_LAST_FOUR, REFUND_LATER_LAST_FOUR } from '../../payment-processor/sandbox-cards';
import { createRefundRequestSchema, refundLifecycle, refundSchema, toRefund, type RefundsService } from '../../refunds';
import type { RefundFlow } from './refund.flow';

/** The operation that starts the refunds flow; the refunds' reads are the refunds feature's. */
const operation = operationsOf<{ refund: RefundFlow; refunds: RefundsService }>();

export const createRefund = operation({
  method: 'post',
  path: '/v1/payment-intents/{id}/refunds',
  operationId: 'createRefund',
  tag: 'Refunds',
  summary: 'Refund a captured payment intent, in part or in full',
  description: `Not in the spec; Stripe's and Adyen's model (Toast's hosted checkout has none). Refunds \`amount\` (all of \`refundableAmount\` when left out) of a SUCCEEDED intent within REFUND_WINDOW_DAYS (90) of its capture, else 409 \`REFUND_WINDOW_CLOSED\`. Several refunds while their sum stays within \`amountCaptured\`, however requests race (PENDING ones count): more than is left is 409 \`REFUND_EXCEEDS_CAPTURED\`, naming what is left. Server side only.

Recorded PENDING, then the processor is asked: 201 with the refund after its answer (SUCCEEDED, FAILED with \`failureCode\`, its amount refundable again, or still PENDING when it answers later; the service asks again every second). A retry with the same Idempotency-Key answers the refund as it stands then.

${refundLifecycle()}

The sandbox processor decides by the card the intent was paid with (the confirm operation's table of test cards): \`${REFUND_FAILS_LAST_FOUR}\` fails every refund, \`${REFUND_LATER_LAST_FOUR}\` answers them later.

${STATUS_TABLE_POINTER}`,
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: paymentIntentParamsSchema,
  body: { schema: createRefundRequestSchema, optional: true },
  responses: { 201: { description: "The refund, after the processor's answer (PENDING if it answers later).", schema: refundSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND', 'PAYMENT_INTENT_STATUS_CONFLICT', 'REFUND_EXCEEDS_CAPTURED', 'REFUND_WINDOW_CLOSED'],
  handle: async ({ write, params, body }, { refund }) => ({ status: 201, body: toRefund(await refund.create(write, params.id, body)) }),
  afterCommit: async ({ write, answer }, { refund, refunds }) => ({
    status: 201,
    body: toRefund(await refund.settle(write, await refunds.get(write.db, write.locationId, String(answer.id)))),
  }),
});

export const refundOperations = [createRefund];
