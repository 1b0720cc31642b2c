import { z } from 'zod';
import { contextNameSchema } from '../payment-methods';
import { customerIdPathParameter } from '../customers';
import { MAX_AMOUNT } from '../platform/validation/amount';
import { instant } from '../platform/validation/instant';
import { int32 } from '../platform/validation/int32';
import { pageOf, pageQuery } from '../platform/validation/page-query';
import { identifierText, safeText, uuidValue } from '../platform/validation/text.schemas';
import { CONSENT_CHANNELS, MANDATE_STATUSES, STANDING_INSTRUCTION_TYPES, type ConsentRecord, type MandateRecord } from './mandate-record';

export const consentRequestSchema = z
  .strictObject({
    acceptedAt: instant.meta({
      description: 'When the payor agreed, ISO 8601 with a time zone; not in the future (up to a minute of clock difference is taken).',
    }),
    textVersion: identifierText({ min: 1, max: 255, description: 'Which version of the agreement text the payor was shown, as the integration names it.' }),
    channel: z.enum(CONSENT_CHANNELS).optional().meta({ description: 'Where the payor agreed.' }),
    ipAddress: z
      // 45: the longest IPv6 text, an IPv4-mapped one.
      .union([z.ipv4().max(15), z.ipv6().max(45)])
      .optional()
      .meta({ description: "The payor's IP address when agreeing online. Personal data: cleared when the customer is erased." }),
    userAgent: safeText({ min: 1, max: 1024 })
      .optional()
      .meta({ description: "The payor's browser when agreeing online. Personal data: cleared when the customer is erased." }),
  })
  .meta({ id: 'MandateConsentRequest' });

export const createMandateRequestSchema = z
  .strictObject({
    paymentMethodId: uuidValue.meta({ description: "The customer's saved card the mandate charges." }),
    standingInstructionType: z.enum(STANDING_INSTRUCTION_TYPES).meta({
      description: 'RECURRING: charges at regular intervals (a subscription); INSTALLMENT: a fixed number of charges; UNSCHEDULED: charges when due (top-ups).',
    }),
    contextName: contextNameSchema.optional(),
    maxAmount: int32(1, MAX_AMOUNT).optional().meta({ description: 'The most one charge under this mandate may be, in minor units.' }),
    consent: consentRequestSchema,
  })
  .meta({
    id: 'CreateMandateRequest',
    example: {
      paymentMethodId: '019ab3c4-7a10-7b2c-8d3e-4f5a6b7c8d9e',
      standingInstructionType: 'RECURRING',
      contextName: 'gold-plan',
      maxAmount: 2500,
      consent: {
        acceptedAt: '2026-11-23T19:02:41.517Z',
        textVersion: 'gold-plan-terms-v3',
        channel: 'ONLINE',
        ipAddress: '203.0.113.7',
        userAgent: 'Mozilla/5.0',
      },
    },
  });

export type CreateMandateInput = z.output<typeof createMandateRequestSchema>;

export const mandateParamsSchema = z.object({
  id: customerIdPathParameter,
  mandateId: uuidValue.meta({ description: 'Mandate identifier.', param: { id: 'MandateId' } }),
});

const MANDATE_EXAMPLE = {
  id: '019ab3c6-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
  customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9',
  paymentMethodId: '019ab3c4-7a10-7b2c-8d3e-4f5a6b7c8d9e',
  contextName: 'gold-plan',
  standingInstructionType: 'RECURRING',
  status: 'ACTIVE',
  maxAmount: 2500,
  consent: { acceptedAt: '2026-11-23T19:02:41.517Z', textVersion: 'gold-plan-terms-v3', channel: 'ONLINE', ipAddress: '203.0.113.7', userAgent: 'Mozilla/5.0' },
  createdAt: '2026-11-23T19:02:42.001Z',
  revokedAt: null,
};

/** A consent as recorded (a mandate's, and the one a setup intent keeps for the mandate it makes). */
export const consentSchema = z
  .strictObject({
    acceptedAt: z.string().meta({ description: 'ISO 8601 UTC with milliseconds, ending in Z.' }),
    textVersion: z.string(),
    channel: z.enum(CONSENT_CHANNELS).nullable(),
    ipAddress: z.string().nullable().meta({ description: 'Null once the customer is erased.' }),
    userAgent: z.string().nullable().meta({ description: 'Null once the customer is erased.' }),
  })
  .meta({ id: 'MandateConsent' });

export function toConsent(consent: ConsentRecord): z.infer<typeof consentSchema> {
  return {
    acceptedAt: consent.acceptedAt.toISOString(),
    textVersion: consent.textVersion,
    channel: consent.channel,
    ipAddress: consent.ipAddress,
    userAgent: consent.userAgent,
  };
}

export const mandateSchema = z
  .strictObject({
    id: z.uuid(),
    customerId: z.uuid(),
    paymentMethodId: z
      .uuid()
      .meta({ description: 'The card charged; it stays chargeable off-session while the mandate is ACTIVE, even once removed from the customer.' }),
    contextName: z.string().nullable(),
    standingInstructionType: z.enum(STANDING_INSTRUCTION_TYPES),
    status: z.enum(MANDATE_STATUSES).meta({ description: 'ACTIVE until revoked; INACTIVE for good.' }),
    maxAmount: int32(1, MAX_AMOUNT).nullable(),
    consent: consentSchema,
    createdAt: z.string().meta({ description: 'ISO 8601 UTC with milliseconds, ending in Z.' }),
    revokedAt: z.string().nullable().meta({ description: 'When it became INACTIVE.' }),
  })
  .meta({ id: 'Mandate', example: MANDATE_EXAMPLE });

export type Mandate = z.infer<typeof mandateSchema>;

export function toMandate(mandate: MandateRecord): Mandate {
  return {
    id: mandate.id,
    customerId: mandate.customerId,
    paymentMethodId: mandate.paymentMethodId,
    contextName: mandate.contextName,
    standingInstructionType: mandate.standingInstructionType,
    status: mandate.status,
    maxAmount: mandate.maxAmount,
    consent: toConsent(mandate.consent),
    createdAt: mandate.createdAt.toISOString(),
    revokedAt: mandate.revokedAt?.toISOString() ?? null,
  };
}

export const listMandatesQuerySchema = z.object({
  ...pageQuery({ items: 'Mandates', item: 'mandate' }, 'newest first', MANDATE_EXAMPLE.id),
});

/** What a customer's mandates list's `startingAfter` must be (its description and its 400 say the same). */
export const MANDATE_CURSOR = "one of this customer's mandates";

export const mandateListResponseSchema = pageOf(
  'mandates',
  mandateSchema,
  { items: 'mandates', order: 'Newest first' },
  { id: 'MandateList', example: { results: 1, mandates: [MANDATE_EXAMPLE], hasMore: false } },
);
