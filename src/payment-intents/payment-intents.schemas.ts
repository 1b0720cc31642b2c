import { z } from 'zod';
import { STANDING_INSTRUCTION_TYPES } from '../mandates';
import { contextNameSchema } from '../payment-methods';
import { MAX_AMOUNT } from '../platform/validation/amount';
import { int32 } from '../platform/validation/int32';
import { pageOf, pageQuery } from '../platform/validation/page-query';
import { identifierText, uuidValue } from '../platform/validation/text.schemas';
import { PAYMENT_INTENT_STATUSES } from './payment-intent-status';
import { CANCELLATION_REASONS, PAYMENT_STATUSES, type LatestPayment, type PaymentIntentRecord } from './payment-intents.repository';

export const CAPTURE_METHODS = ['MANUAL', 'AUTOMATIC'] as const;
export { MAX_AMOUNT };

/** Minor units (cents for USD), from 1 up to 999,999.99 in a two-decimal currency; the spec types them `integer`. */
const amountSchema = int32(1, MAX_AMOUNT);
const tipSchema = int32(0, MAX_AMOUNT).meta({ description: 'The part of `amount` that is tip, in minor units of the currency.' });

/** Toast's option: an authorization of less than the amount is taken, and the rest is left to another intent. */
const paymentMethodOptionsSchema = z
  .strictObject({
    card: z.strictObject({
      partialAuthorization: z.boolean().meta({
        description:
          "Take an authorization of less than `amount` (e.g. a gift card's balance): the intent's `amount` becomes what was authorized and `amountRequested` keeps what was asked; without it such a card is declined (`insufficient_funds`).",
      }),
    }),
  })
  .meta({ id: 'PaymentMethodOptions' });

/** Stripe's rule: the tip is a part of the amount, never more than it. */
export const TIP_EXCEEDS_AMOUNT = 'Must not exceed amount: the tip is a part of it.';
const tipWithinAmount = (body: { amount?: number; amountDetails?: { tip: number } }) =>
  body.amount === undefined || body.amountDetails === undefined || body.amountDetails.tip <= body.amount;
/** Checked only on a body whose fields are each valid: a bad amount is named alone, not as a tip problem too. */
const TIP_CHECK = { message: TIP_EXCEEDS_AMOUNT, path: ['amountDetails', 'tip'], when: (payload: { issues: unknown[] }) => payload.issues.length === 0 };

/**
 * The create body. Whether its currency is one the service takes is
 * configuration (PAYMENT_CURRENCIES), checked by the service.
 */
export const createPaymentIntentRequestSchema = z
  .strictObject({
    amount: amountSchema.meta({ description: 'Amount in minor units of the currency (cents for USD).' }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, { message: 'Must be an ISO 4217 code in upper case, e.g. USD.', abort: true })
      .length(3),
    externalReferenceId: identifierText({ min: 1, max: 255, description: "The caller's reference, e.g. its order's id." }),
    customerId: uuidValue.optional().meta({ description: 'A customer of this location.' }),
    captureMethod: z.enum(CAPTURE_METHODS).default('MANUAL'),
    email: z.email().max(254).optional(),
    amountDetails: z.strictObject({ tip: tipSchema }).optional(),
    paymentMethodConfigurationId: uuidValue.optional(),
    standingInstructionType: z
      .enum(STANDING_INSTRUCTION_TYPES)
      .optional()
      .meta({ description: "The kind of stored-credential charge; the mandate's when `mandateId` is given and this is not." }),
    offSession: z.boolean().default(false).meta({
      description: 'A merchant-initiated charge, the payor absent: requires `mandateId`, and is confirmed by the server side only (docs/cards-on-file.md).',
    }),
    mandateId: uuidValue.optional().meta({
      description:
        "An ACTIVE mandate of the intent's customer (POST /v1/customers/{id}/mandates): the payor's consent this charge is made under; its card pays when a confirm names none.",
    }),
    contextName: contextNameSchema.optional().meta({
      description:
        "Not in the spec: the integration context (e.g. a subscription's name) whose default card pays the intent when a confirm names no card and no mandate does.",
    }),
    paymentMethodOptions: paymentMethodOptionsSchema.optional(),
  })
  .refine(tipWithinAmount, TIP_CHECK)
  .meta({
    id: 'CreatePaymentIntentRequest',
    example: {
      amount: 1250,
      currency: 'USD',
      externalReferenceId: 'order-7',
      captureMethod: 'MANUAL',
      email: 'ada@example.com',
      amountDetails: { tip: 150 },
    },
  });

export type CreatePaymentIntentInput = z.output<typeof createPaymentIntentRequestSchema>;

export const paymentIntentParamsSchema = z.object({ id: uuidValue.meta({ description: 'Payment intent identifier.', param: { id: 'PaymentIntentId' } }) });

export const updatePaymentIntentRequestSchema = z
  .strictObject({
    amount: amountSchema.optional().meta({ description: 'Amount in minor units of the currency (cents for USD).' }),
    amountDetails: z.strictObject({ tip: tipSchema }).optional(),
    email: z.email().max(254).nullable().optional().meta({ description: '`null` clears it.' }),
    customerId: uuidValue.nullable().optional().meta({
      description:
        "A customer of this location; `null` clears it. Another customer detaches an attached card (back to REQUIRES_PAYMENT_METHOD) unless `paymentMethodId` names one of the new customer's.",
    }),
    externalReferenceId: identifierText({ min: 1, max: 255, description: "The caller's reference, e.g. its order's id." }).optional(),
    paymentMethodId: uuidValue.nullable().optional().meta({
      description:
        "A saved card of the intent's customer to pay with: the intent moves to REQUIRES_CONFIRMATION. `null` detaches it (back to REQUIRES_PAYMENT_METHOD).",
    }),
    paymentMethodOptions: paymentMethodOptionsSchema.optional(),
    contextName: contextNameSchema
      .nullable()
      .optional()
      .meta({ description: 'Not in the spec: the context whose default card pays the intent; `null` clears it.' }),
  })
  .refine(tipWithinAmount, TIP_CHECK)
  .meta({ id: 'UpdatePaymentIntentRequest', example: { amount: 1400, amountDetails: { tip: 300 }, email: 'ada@example.com' } });

export type UpdatePaymentIntentInput = z.output<typeof updatePaymentIntentRequestSchema>;

export const confirmPaymentIntentRequestSchema = z
  .strictObject({
    paymentMethodId: uuidValue.optional().meta({
      description:
        "A saved card of the intent's customer. When left out: the card attached by an update, else the mandate's card (`mandateId`), else the customer's default card for the intent's `contextName`.",
    }),
  })
  .meta({ id: 'ConfirmPaymentIntentRequest', example: { paymentMethodId: '019ab3c4-7a10-7b2c-8d3e-4f5a6b7c8d9e' } });

export const capturePaymentIntentRequestSchema = z
  .strictObject({
    amountToCapture: amountSchema.optional().meta({ description: 'At most the authorized amount; the whole of it when left out.' }),
    amountDetails: z.strictObject({ tip: tipSchema }).optional().meta({
      description:
        "The tip taken at capture: it replaces the intent's tip, and the amount with it is captured, up to OVERCAPTURE_MAX_PERCENT above the authorized amount. Not with `amountToCapture`.",
    }),
  })
  .meta({ id: 'CapturePaymentIntentRequest', example: { amountDetails: { tip: 200 } } });

/** A caller's reasons; AUTOMATIC (the capture window) and EXPIRED (the intent's expiry) are the service's own. */
const REQUESTED_CANCELLATION_REASONS = CANCELLATION_REASONS.filter((reason) => reason !== 'AUTOMATIC' && reason !== 'EXPIRED');

export const cancelPaymentIntentRequestSchema = z
  .strictObject({
    cancellationReason: z.enum(REQUESTED_CANCELLATION_REASONS as ['DUPLICATE', 'FRAUDULENT', 'REQUESTED_BY_CUSTOMER', 'ABANDONED']).optional(),
  })
  .meta({ id: 'CancelPaymentIntentRequest', example: { cancellationReason: 'REQUESTED_BY_CUSTOMER' } });

export const listPaymentIntentsQuerySchema = z.object({
  ...pageQuery({ items: 'Payment intents', item: 'payment intent' }, 'newest first', '019ab3c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f'),
  customerId: uuidValue.optional().meta({ description: "Only this customer's intents.", example: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9' }),
  status: z.enum(PAYMENT_INTENT_STATUSES).optional().meta({ description: 'Only intents in this status.', example: 'REQUIRES_CAPTURE' }),
  externalReferenceId: identifierText({ min: 1, max: 255, description: "Only intents with this reference (e.g. one order's)." })
    .optional()
    .meta({ example: 'order-7' }),
});

const paymentErrorSchema = z
  .strictObject({
    code: z.string().meta({ description: 'card_declined, expired_card, processing_error (retry), capture_failed, …' }),
    declineCode: z.string().nullable().meta({ description: "The issuer's reason for a card_declined: generic_decline, insufficient_funds, …" }),
    message: z.string(),
  })
  .meta({ id: 'PaymentError' });

const latestPaymentSchema = z
  .strictObject({
    id: z.uuid(),
    status: z.enum(PAYMENT_STATUSES).meta({
      description: 'PENDING while the processor is asked; AUTHORIZED, then CAPTURED or VOIDED; FAILED when declined.',
    }),
    amount: amountSchema.meta({ description: 'Authorized, then what was captured, in minor units.' }),
    createdAt: z.string().meta({ description: 'ISO 8601 UTC with milliseconds, ending in Z.' }),
    card: z.strictObject({
      brand: z.string(),
      lastFour: z.string(),
      expiry: z.strictObject({ month: z.string(), year: z.string() }),
    }),
  })
  .meta({ id: 'Payment' });

const PAYMENT_INTENT_EXAMPLE = {
  id: '019ab3c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
  externalReferenceId: 'order-7',
  sessionSecret: 'PI_019ab3c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f_SECRET_q3v9XbT2LmRw8sYpK4nZc1Hd',
  amount: 1250,
  currency: 'USD',
  captureMethod: 'MANUAL',
  status: 'REQUIRES_PAYMENT_METHOD',
  creationDate: '2026-11-23T18:30:07.123Z',
  customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9',
  amountDetails: { tip: 150 },
  email: 'ada@example.com',
  paymentMethodConfigurationDetails: null,
  standingInstructionType: null,
  offSession: false,
  latestPayment: null,
  mandateId: null,
  contextName: null,
  paymentMethodId: null,
  lastPaymentError: null,
  cancellationReason: null,
  amountCaptured: 0,
  amountRefunded: 0,
  refundableAmount: 0,
  amountDisputed: 0,
  disputeStatus: null,
  paymentMethodOptions: { card: { partialAuthorization: false } },
  amountRequested: null,
};

export const paymentIntentSchema = z
  .strictObject({
    id: z.uuid(),
    externalReferenceId: z.string(),
    sessionSecret: z.string().meta({ description: 'Sent by the browser side as Platform-Session-Secret.' }),
    amount: amountSchema.meta({ description: 'Amount in minor units of the currency (cents for USD).' }),
    currency: z.string(),
    captureMethod: z.enum(CAPTURE_METHODS),
    status: z.enum(PAYMENT_INTENT_STATUSES),
    creationDate: z.string().meta({ description: 'ISO 8601 UTC with milliseconds, ending in Z.' }),
    customerId: z.uuid().nullable(),
    amountDetails: z.strictObject({ tip: tipSchema }),
    email: z.string().nullable(),
    paymentMethodConfigurationDetails: z.strictObject({ id: z.uuid() }).nullable(),
    standingInstructionType: z.enum(STANDING_INSTRUCTION_TYPES).nullable(),
    offSession: z.boolean(),
    latestPayment: latestPaymentSchema.nullable().meta({ description: "The latest confirm's payment; null before the first." }),
    mandateId: z.string().nullable(),
    contextName: z.string().nullable().meta({ description: 'Not in the spec: the context whose default card pays the intent when a confirm names none.' }),
    paymentMethodId: z.uuid().nullable().meta({ description: 'The saved card attached or paid with; cleared by a failed payment.' }),
    lastPaymentError: paymentErrorSchema.nullable().meta({ description: 'Why the latest payment failed; null once another confirm starts.' }),
    cancellationReason: z.enum(CANCELLATION_REASONS).nullable().meta({
      description: 'AUTOMATIC: voided by the service when the capture window ended; EXPIRED: still unpaid INTENT_EXPIRY_HOURS after its creation.',
    }),
    amountCaptured: int32(0, MAX_AMOUNT).meta({ description: 'Not in the spec: what was captured, in minor units (0 until the intent is SUCCEEDED).' }),
    amountRefunded: int32(0, MAX_AMOUNT).meta({
      description: 'Not in the spec: what PENDING and SUCCEEDED refunds take from the captured amount (a FAILED refund gives its amount back).',
    }),
    refundableAmount: int32(0, MAX_AMOUNT).meta({
      description: 'Not in the spec: `amountCaptured` less `amountRefunded` and `amountDisputed`, what a refund may still take.',
    }),
    amountDisputed: int32(0, MAX_AMOUNT).meta({
      description:
        'Not in the spec: what chargebacks hold of the captured amount (open, lost or accepted ones; a won one gives it back). Inquiries hold nothing.',
    }),
    disputeStatus: z.string().nullable().meta({
      description: "Not in the spec: the `status` of the intent's dispute moved last (a Dispute's, e.g. NEEDS_RESPONSE); null when it was never disputed.",
    }),
    paymentMethodOptions: paymentMethodOptionsSchema.meta({ description: "Not in the spec (Toast's): whether a partial authorization is taken." }),
    amountRequested: amountSchema.nullable().meta({
      description:
        "This service's own field (Toast has none): the amount asked for, once a partial authorization made `amount` what was authorized; what is left to pay is `amountRequested` less `amount`. A tip added at capture is this card's own: it changes `amountRequested` as it changes `amount`, so what is left to pay stays. Null otherwise.",
    }),
  })
  .meta({
    id: 'PaymentIntent',
    example: PAYMENT_INTENT_EXAMPLE,
  });

export type PaymentIntent = z.infer<typeof paymentIntentSchema>;

/** Rebuilt in the schema's order: jsonb, where it is kept, orders keys its own way. */
function toPayment(payment: LatestPayment): LatestPayment {
  const { card } = payment;
  return {
    id: payment.id,
    status: payment.status,
    amount: payment.amount,
    createdAt: payment.createdAt,
    card: { brand: card.brand, lastFour: card.lastFour, expiry: { month: card.expiry.month, year: card.expiry.year } },
  };
}

export function toPaymentIntent(intent: PaymentIntentRecord): PaymentIntent {
  return {
    id: intent.id,
    externalReferenceId: intent.externalReferenceId,
    sessionSecret: intent.sessionSecret,
    amount: intent.amount,
    currency: intent.currency,
    captureMethod: intent.captureMethod,
    status: intent.status,
    creationDate: intent.createdAt.toISOString(),
    customerId: intent.customerId,
    amountDetails: { tip: intent.tip },
    email: intent.email,
    paymentMethodConfigurationDetails: intent.paymentMethodConfigurationId === null ? null : { id: intent.paymentMethodConfigurationId },
    standingInstructionType: intent.standingInstructionType,
    offSession: intent.offSession,
    latestPayment: intent.latestPayment === null ? null : toPayment(intent.latestPayment),
    mandateId: intent.mandateId,
    contextName: intent.contextName,
    paymentMethodId: intent.paymentMethodId,
    lastPaymentError:
      intent.lastPaymentError === null
        ? null
        : { code: intent.lastPaymentError.code, declineCode: intent.lastPaymentError.declineCode, message: intent.lastPaymentError.message },
    cancellationReason: intent.cancellationReason,
    amountCaptured: intent.amountCaptured,
    amountRefunded: intent.amountRefunded,
    refundableAmount: intent.amountCaptured - intent.amountRefunded - intent.amountDisputed,
    amountDisputed: intent.amountDisputed,
    disputeStatus: intent.disputeStatus,
    paymentMethodOptions: { card: { partialAuthorization: intent.partialAuthorization } },
    amountRequested: intent.amountRequested,
  };
}

/** What a payment intents list's `startingAfter` must be (its description and its 400 say the same). */
export const PAYMENT_INTENT_CURSOR = 'a payment intent of this location';

export const paymentIntentListResponseSchema = pageOf(
  'paymentIntents',
  paymentIntentSchema,
  { items: 'intents', order: 'Newest first' },
  { id: 'PaymentIntentList', example: { results: 1, paymentIntents: [PAYMENT_INTENT_EXAMPLE], hasMore: false } },
);

/** An intent as its events carry it: as the API answers it, without its session secret (events are never secret). */
export function toPaymentIntentEventObject(intent: PaymentIntentRecord): object {
  const { sessionSecret: _secret, ...object } = toPaymentIntent(intent);
  return object;
}
