import { z } from 'zod';
import { identifierText, uuidValue } from '../platform/validation/text.schemas';
import { PAYMENT_INTENT_STATUSES } from './payment-intent-status';
import type { PaymentIntentRecord } from './payment-intents.repository';

export const CAPTURE_METHODS = ['MANUAL', 'AUTOMATIC'] as const;
export const STANDING_INSTRUCTION_TYPES = ['INSTALLMENT', 'RECURRING', 'UNSCHEDULED'] as const;
export const MAX_AMOUNT = 99_999_999;

/** Minor units (cents for USD), from 1 up to 999,999.99 in a two-decimal currency; the spec types them `integer`. */
const amountSchema = z.int().min(1).max(MAX_AMOUNT);
const tipSchema = z.int().min(0).max(MAX_AMOUNT).meta({ description: 'Tip in minor units of the currency.' });

/**
 * The create body. Whether its currency is one the service takes is
 * configuration (PAYMENT_CURRENCIES), checked by the service.
 */
export const createPaymentIntentRequestSchema = z
  .strictObject({
    amount: amountSchema.meta({ description: 'Amount in minor units of the currency (cents for USD).' }),
    currency: z.string().regex(/^[A-Z]{3}$/, { message: 'Must be an ISO 4217 code in upper case, e.g. USD.' }),
    externalReferenceId: identifierText({ min: 1, max: 255, description: "The caller's reference, e.g. its order's id." }),
    customerId: uuidValue.optional().meta({ description: 'A customer of this location.' }),
    captureMethod: z.enum(CAPTURE_METHODS).default('MANUAL'),
    email: z.email().max(254).optional(),
    amountDetails: z.strictObject({ tip: tipSchema }).optional(),
    paymentMethodConfigurationId: uuidValue.optional(),
    standingInstructionType: z.enum(STANDING_INSTRUCTION_TYPES).optional(),
    offSession: z.boolean().default(false),
    mandateId: identifierText({ min: 1, max: 255, description: 'The mandate the payment is made under.' }).optional(),
  })
  .meta({
    id: 'CreatePaymentIntentRequest',
    example: {
      amount: 1250,
      currency: 'USD',
      externalReferenceId: 'order-7',
      customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9',
      captureMethod: 'MANUAL',
      email: 'ada@example.com',
      amountDetails: { tip: 150 },
    },
  });

export type CreatePaymentIntentInput = z.output<typeof createPaymentIntentRequestSchema>;

export const paymentIntentParamsSchema = z.object({ id: uuidValue.meta({ description: 'Payment intent identifier.' }) });

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
    latestPayment: z.null().meta({ description: 'No payment is made through this service yet: always null.' }),
    mandateId: z.string().nullable(),
  })
  .meta({
    id: 'PaymentIntent',
    example: {
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
    },
  });

export type PaymentIntent = z.infer<typeof paymentIntentSchema>;

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
    paymentMethodConfigurationDetails:
      intent.paymentMethodConfigurationId === null ? null : { id: intent.paymentMethodConfigurationId },
    standingInstructionType: intent.standingInstructionType,
    offSession: intent.offSession,
    latestPayment: null,
    mandateId: intent.mandateId,
  };
}

/** An intent as its events carry it: as the API answers it, without its session secret (events are never secret). */
export function toPaymentIntentEventObject(intent: PaymentIntentRecord): object {
  const { sessionSecret: _secret, ...object } = toPaymentIntent(intent);
  return object;
}
