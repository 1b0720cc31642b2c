import { z } from 'zod';
import { MAX_CARDS_PER_CUSTOMER } from '../platform/config';
import { int32 } from '../platform/validation/int32';
import { identifierText, safeText, uuidValue } from '../platform/validation/text.schemas';
import { CARD_TYPES, cardTypeOf } from './card-brand';
import type { PaymentMethodRecord } from './payment-methods.repository';
import { customerIdPathParameter } from '../customers';

const lastFour = z
  .string()
  .regex(/^\d{4}$/, { message: 'Must be four digits.', abort: true })
  .length(4);

/** How many years ahead an expiry may be; a later one is a typing mistake, not a card. */
const MAX_EXPIRY_YEARS_AHEAD = 50;

const month = z
  .string()
  .regex(/^(0?[1-9]|1[0-2])$/, { message: 'Must be a month from 01 to 12.', abort: true })
  .max(2)
  .transform((value) => value.padStart(2, '0'));

// A two-digit year is read as 20YY, the way cards print it.
const year = z
  .string()
  .regex(/^(\d{2}|\d{4})$/, { message: 'Must be a year of four (or two) digits.', abort: true })
  .max(4)
  .transform((value) => (value.length === 2 ? `20${value}` : value));

const expiry = z.strictObject({ month, year }).superRefine((value, context) => {
  // zod still runs this refinement when month or year failed their own checks.
  if (!/^\d{2}$/.test(value.month) || !/^\d{4}$/.test(value.year)) return;
  const now = new Date();
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const expiryMonth = Number(value.year) * 12 + Number(value.month) - 1;
  if (expiryMonth < thisMonth) {
    context.addIssue({ code: 'custom', message: 'The card has expired.' });
  } else if (Number(value.year) > now.getUTCFullYear() + MAX_EXPIRY_YEARS_AHEAD) {
    context.addIssue({ code: 'custom', path: ['year'], message: 'The expiry year is too far ahead.' });
  }
});

export const contextNameSchema = identifierText({
  min: 1,
  max: 255,
  description:
    'Name, chosen by the integration, of the application context the default applies to, e.g. a store-specific checkout name or a subscription name.',
});

export const createPaymentMethodRequestSchema = z
  .strictObject({
    type: z.literal('CARD').meta({ description: 'Type of saved payment method. Only CARD exists.' }),
    card: z.strictObject({
      type: safeText({ min: 1, max: 50 }).meta({ description: 'Card brand as the vault names it, e.g. VISA.' }),
      lastFour: lastFour,
      expiry,
    }),
    fingerprint: identifierText({
      min: 1,
      max: 255,
      description: "The vault's fingerprint of the card number: saving the same card again updates it.",
    }).optional(),
  })
  .meta({
    id: 'CreatePaymentMethodRequest',
    example: {
      type: 'CARD',
      card: { type: 'VISA', lastFour: '4242', expiry: { month: '03', year: '2031' } },
      fingerprint: 'fp_8f14e45fceea167a',
    },
  });

export type CreatePaymentMethodInput = z.output<typeof createPaymentMethodRequestSchema>;

export const setDefaultPaymentMethodRequestSchema = z
  .strictObject({
    paymentMethodId: uuidValue.meta({ description: 'Identifier of the payment method to make the default.' }),
    contextName: contextNameSchema,
  })
  .meta({
    id: 'SetDefaultPaymentMethodRequest',
    example: { paymentMethodId: '019ab3c4-7d2e-7f10-9a4b-5c6d7e8f9012', contextName: 'web-checkout' },
  });

export type SetDefaultPaymentMethodInput = z.output<typeof setDefaultPaymentMethodRequestSchema>;

/**
 * The vault's update of a saved card (a renewal): the create's shape, every
 * part optional. The brand, if sent, must be the card's own.
 */
export const updatePaymentMethodRequestSchema = z
  .strictObject({
    type: z.literal('CARD').optional(),
    card: z
      .strictObject({
        type: safeText({ min: 1, max: 50 }).optional().meta({ description: "The card's brand, as saved; another brand is refused." }),
        lastFour: lastFour.optional(),
        expiry: expiry.optional(),
      })
      .optional(),
    fingerprint: identifierText({
      min: 1,
      max: 255,
      description: "The vault's fingerprint of the renewed card number; another card of the customer holding it is a 409.",
    }).optional(),
  })
  .meta({
    id: 'UpdatePaymentMethodRequest',
    example: { card: { lastFour: '4242', expiry: { month: '09', year: '2033' } }, fingerprint: 'fp_2c9a0b7e55d1f3e4' },
  });

export type UpdatePaymentMethodInput = z.output<typeof updatePaymentMethodRequestSchema>;

export const listPaymentMethodsQuerySchema = z.object({
  expiringBefore: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'Must be a month as YYYY-MM.', abort: true })
    .length(7)
    .optional()
    .meta({ description: 'Only the cards whose expiry month is before this month (YYYY-MM): those to ask the payor to renew.', example: '2027-01' }),
});

export const paymentMethodParamsSchema = z.object({
  id: customerIdPathParameter,
  paymentMethodId: uuidValue.meta({ description: 'The saved card.', param: { id: 'PaymentMethodId' } }),
});
export const defaultPaymentMethodParamsSchema = z.object({
  id: customerIdPathParameter,
  contextName: contextNameSchema.meta({ param: { id: 'ContextName' } }),
});

const expiryResponse = z
  .strictObject({
    month: z.string().meta({ description: 'Expiration month of the card.' }),
    year: z.string().meta({ description: 'Expiration year of the card.' }),
  })
  .meta({ id: 'Expiry' });

const cardResponse = z
  .strictObject({
    lastFour: z.string().meta({ description: 'Last four digits of the card.' }),
    expiry: expiryResponse,
    type: z.string().meta({ description: 'Card brand (free string, not an enumeration).' }),
  })
  .meta({ id: 'Card' });

const PAYMENT_METHOD_EXAMPLE = {
  id: '019ab3c4-7d2e-7f10-9a4b-5c6d7e8f9012',
  type: 'CARD',
  cardType: 'Visa',
  lastFour: '4242',
  month: '03',
  year: '2031',
  card: { lastFour: '4242', expiry: { month: '03', year: '2031' }, type: 'VISA' },
  lastUsedAt: '2026-11-23T18:31:02.417Z',
} as const;

export const paymentMethodDataSchema = z
  .strictObject({
    id: z.uuid().meta({ description: 'Identifier of the saved payment method.' }),
    type: z.literal('CARD').meta({ description: 'Type of saved payment method.' }),
    cardType: z.enum(CARD_TYPES).meta({ description: 'Card brand.' }),
    lastFour: z.string().meta({ description: 'Last four digits of the card.' }),
    month: z.string().meta({ description: 'Card expiration month.' }),
    year: z.string().meta({ description: 'Card expiration year.' }),
    card: cardResponse,
    lastUsedAt: z
      .string()
      .nullable()
      .meta({ description: "Not in the spec (Hyperswitch's `last_used_at`): when an approved payment last used the card, ISO 8601 UTC; null if none has." }),
  })
  .meta({ id: 'PaymentMethodData', example: PAYMENT_METHOD_EXAMPLE });

export const customerPaymentMethodsResponseSchema = z
  .strictObject({
    results: int32(0, MAX_CARDS_PER_CUSTOMER).meta({ description: 'Number of payment methods on the record. It equals the size of paymentMethods.' }),
    paymentMethods: z
      .array(paymentMethodDataSchema)
      .max(MAX_CARDS_PER_CUSTOMER)
      .meta({
        description: `The saved payment methods in the order a payor uses them: the customer's defaults first, then by \`lastUsedAt\` (most recent first), then the never-used, oldest first. At most ${MAX_CARDS_PER_CUSTOMER} (MAX_CARDS_PER_CUSTOMER may lower it).`,
      }),
  })
  .meta({ id: 'CustomerPaymentMethodsResponse', example: { results: 1, paymentMethods: [PAYMENT_METHOD_EXAMPLE] } });

export const defaultPaymentMethodResponseSchema = z
  .strictObject({
    paymentMethodId: z.uuid().meta({ description: 'Identifier of the payment method.' }),
    contextName: z.string().meta({ description: 'Context name that identifies the application context.' }),
  })
  .meta({ id: 'DefaultPaymentMethodResponse', example: { paymentMethodId: PAYMENT_METHOD_EXAMPLE.id, contextName: 'web-checkout' } });

export type PaymentMethodData = z.infer<typeof paymentMethodDataSchema>;

export function toPaymentMethodData(card: PaymentMethodRecord): PaymentMethodData {
  return {
    id: card.id,
    type: 'CARD',
    cardType: cardTypeOf(card.cardBrand),
    lastFour: card.lastFour,
    month: card.expMonth,
    year: card.expYear,
    card: { lastFour: card.lastFour, expiry: { month: card.expMonth, year: card.expYear }, type: card.cardBrand },
    lastUsedAt: card.lastUsedAt === null ? null : card.lastUsedAt.toISOString(),
  };
}
