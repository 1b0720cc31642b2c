import { z } from 'zod';
import { int32 } from '../platform/validation/int32';
import { pageOf, pageQuery } from '../platform/validation/page-query';
import { uuidValue } from '../platform/validation/text.schemas';
import { MAX_AMOUNT } from '../payment-intents';
import { REFUND_REASONS, REFUND_STATUSES } from './refund-status';
import type { RefundRecord } from './refund-record';

export const createRefundRequestSchema = z
  .strictObject({
    amount: int32(1, MAX_AMOUNT)
      .optional()
      .meta({ description: "In minor units of the intent's currency; all that is still refundable (`refundableAmount`) when left out." }),
    reason: z.enum(REFUND_REASONS).optional().meta({ description: "Stripe's reasons; recorded, not checked." }),
  })
  .meta({ id: 'CreateRefundRequest', example: { amount: 500, reason: 'REQUESTED_BY_CUSTOMER' } });

export type CreateRefundInput = z.output<typeof createRefundRequestSchema>;

export const refundParamsSchema = z.object({ id: uuidValue.meta({ description: 'Refund identifier.', param: { id: 'RefundId' } }) });

const REFUND_EXAMPLE = {
  id: '019ab3c6-2b3c-7d4e-8f5a-6b7c8d9e0f1a',
  paymentIntentId: '019ab3c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
  amount: 500,
  reason: 'REQUESTED_BY_CUSTOMER',
  status: 'SUCCEEDED',
  failureCode: null,
  createdAt: '2026-11-23T19:02:41.517Z',
};

export const refundSchema = z
  .strictObject({
    id: z.uuid(),
    paymentIntentId: z.uuid(),
    amount: int32(1, MAX_AMOUNT).meta({ description: "In minor units of the intent's currency." }),
    reason: z.enum(REFUND_REASONS).nullable(),
    status: z.enum(REFUND_STATUSES).meta({
      description: 'PENDING until the processor answers (some answer later); then SUCCEEDED, or FAILED with `failureCode`.',
    }),
    failureCode: z.string().nullable().meta({ description: 'Why the processor declined the refund (FAILED only), e.g. `refund_declined`.' }),
    createdAt: z.string().meta({ description: 'ISO 8601 UTC with milliseconds, ending in Z.' }),
  })
  .meta({ id: 'Refund', example: REFUND_EXAMPLE });

export type Refund = z.infer<typeof refundSchema>;

export function toRefund(refund: RefundRecord): Refund {
  return {
    id: refund.id,
    paymentIntentId: refund.paymentIntentId,
    amount: refund.amount,
    reason: refund.reason,
    status: refund.status,
    failureCode: refund.failureCode,
    createdAt: refund.createdAt.toISOString(),
  };
}

export const listRefundsQuerySchema = z.object({
  ...pageQuery({ items: 'Refunds', item: 'refund' }, 'newest first', REFUND_EXAMPLE.id),
});

/** What an intent's refunds list's `startingAfter` must be (its description and its 400 say the same). */
export const REFUND_CURSOR = "one of this payment intent's refunds";

export const refundListResponseSchema = pageOf(
  'refunds',
  refundSchema,
  { items: 'refunds', order: 'Newest first' },
  { id: 'RefundList', example: { results: 1, refunds: [REFUND_EXAMPLE], hasMore: false } },
);
