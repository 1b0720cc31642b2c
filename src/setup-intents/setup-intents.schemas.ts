import { z } from 'zod';
import { consentRequestSchema, consentSchema, STANDING_INSTRUCTION_TYPES, toConsent } from '../mandates';
import { contextNameSchema } from '../payment-methods';
import { MAX_AMOUNT } from '../platform/validation/amount';
import { int32 } from '../platform/validation/int32';
import { pageOf, pageQuery } from '../platform/validation/page-query';
import { uuidValue } from '../platform/validation/text.schemas';
import { SETUP_CANCELLATION_REASONS, SETUP_USAGES, type SetupIntentRecord } from './setup-intent-record';
import { SETUP_INTENT_EXPIRY_MINUTES, SETUP_INTENT_STATUSES } from './setup-intent-status';

/** The fields that describe the mandate an OFF_SESSION setup makes: each required for it, refused for ON_SESSION. */
const MANDATE_FIELDS = ['standingInstructionType', 'consent'] as const;
const OFF_SESSION_ONLY = ['standingInstructionType', 'consent', 'contextName', 'maxAmount'] as const;

export const createSetupIntentRequestSchema = z
  .strictObject({
    customerId: uuidValue.meta({ description: 'The customer of this location the card is saved to.' }),
    usage: z.enum(SETUP_USAGES).default('ON_SESSION').meta({
      description:
        "ON_SESSION (the default): the payor pays with the card later, present (a profile page's saved card). OFF_SESSION: the merchant may also charge it with the payor absent, under the mandate the setup makes from `consent`.",
    }),
    standingInstructionType: z.enum(STANDING_INSTRUCTION_TYPES).optional().meta({
      description: "OFF_SESSION only, and required there: the mandate's kind of stored-credential charge.",
    }),
    contextName: contextNameSchema.optional().meta({ description: "OFF_SESSION only: the mandate's integration context (e.g. a subscription's name)." }),
    maxAmount: int32(1, MAX_AMOUNT).optional().meta({ description: 'OFF_SESSION only: the most one charge under the mandate may be, in minor units.' }),
    consent: consentRequestSchema.optional().meta({
      description:
        "OFF_SESSION only, and required there: the payor's consent to merchant-initiated charges, recorded now and made into the mandate when the card is verified.",
    }),
  })
  .superRefine((body, context) => {
    if (body.usage === 'OFF_SESSION') {
      for (const field of MANDATE_FIELDS) {
        if (body[field] === undefined) {
          context.addIssue({
            code: 'custom',
            path: [field],
            message: "Required for usage OFF_SESSION: a card the merchant charges needs the payor's recorded consent.",
          });
        }
      }
      return;
    }
    for (const field of OFF_SESSION_ONLY) {
      if (body[field] !== undefined)
        context.addIssue({ code: 'custom', path: [field], message: 'Only for usage OFF_SESSION: it describes the mandate such a setup makes.' });
    }
  })
  .meta({
    id: 'CreateSetupIntentRequest',
    example: {
      customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9',
      usage: 'OFF_SESSION',
      standingInstructionType: 'UNSCHEDULED',
      contextName: 'reorder',
      consent: { acceptedAt: '2026-11-23T19:02:41.517Z', textVersion: 'saved-card-terms-v2', channel: 'ONLINE' },
    },
  });

export type CreateSetupIntentInput = z.output<typeof createSetupIntentRequestSchema>;

export const setupIntentParamsSchema = z.object({ id: uuidValue.meta({ description: 'Setup intent identifier.', param: { id: 'SetupIntentId' } }) });

/** A caller's reasons; EXPIRED is the service's own. */
const REQUESTED_REASONS = SETUP_CANCELLATION_REASONS.filter((reason) => reason !== 'EXPIRED') as ['REQUESTED_BY_CUSTOMER', 'ABANDONED', 'DUPLICATE'];

export const cancelSetupIntentRequestSchema = z
  .strictObject({ cancellationReason: z.enum(REQUESTED_REASONS).optional() })
  .meta({ id: 'CancelSetupIntentRequest', example: { cancellationReason: 'ABANDONED' } });

export const listSetupIntentsQuerySchema = z.object({
  ...pageQuery({ items: 'Setup intents', item: 'setup intent' }, 'newest first', '019ab3c7-2b3c-7d4e-8f5a-6b7c8d9e0f1a'),
  customerId: uuidValue.optional().meta({ description: "Only this customer's setup intents.", example: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9' }),
  status: z.enum(SETUP_INTENT_STATUSES).optional().meta({ description: 'Only setup intents in this status.', example: 'SUCCEEDED' }),
});

/** What a setup intents list's `startingAfter` must be. */
export const SETUP_INTENT_CURSOR = 'a setup intent of this location';

const setupErrorSchema = z
  .strictObject({
    code: z.string().meta({ description: 'card_declined, expired_card, processing_error (retry), card_limit_reached, …' }),
    declineCode: z.string().nullable().meta({ description: "The issuer's reason for a card_declined: generic_decline, insufficient_funds, …" }),
    message: z.string(),
  })
  .meta({ id: 'SetupError' });

const SETUP_INTENT_EXAMPLE = {
  id: '019ab3c7-2b3c-7d4e-8f5a-6b7c8d9e0f1a',
  customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9',
  sessionSecret: 'SI_019ab3c7-2b3c-7d4e-8f5a-6b7c8d9e0f1a_SECRET_r7Jt2WqLx9Pb4NcVz6Hk3Ds1',
  status: 'SUCCEEDED',
  usage: 'OFF_SESSION',
  standingInstructionType: 'UNSCHEDULED',
  contextName: 'reorder',
  maxAmount: null,
  consent: { acceptedAt: '2026-11-23T19:02:41.517Z', textVersion: 'saved-card-terms-v2', channel: 'ONLINE', ipAddress: null, userAgent: null },
  creationDate: '2026-11-23T19:02:42.001Z',
  card: { brand: 'VISA', lastFour: '4242', expiry: { month: '03', year: '2031' } },
  paymentMethodId: '019ab3c4-7a10-7b2c-8d3e-4f5a6b7c8d9e',
  mandateId: '019ab3c6-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
  lastSetupError: null,
  cancellationReason: null,
};

export const setupIntentSchema = z
  .strictObject({
    id: z.uuid(),
    customerId: z.uuid().nullable().meta({ description: 'Null once the customer is erased.' }),
    sessionSecret: z.string().meta({
      description: `Sent by the browser side as Platform-Session-Secret to read and confirm this setup intent; dead once it is SUCCEEDED or CANCELED, and ${SETUP_INTENT_EXPIRY_MINUTES} minutes after its creation.`,
    }),
    status: z.enum(SETUP_INTENT_STATUSES),
    usage: z.enum(SETUP_USAGES),
    standingInstructionType: z.enum(STANDING_INSTRUCTION_TYPES).nullable(),
    contextName: z.string().nullable(),
    maxAmount: int32(1, MAX_AMOUNT).nullable(),
    consent: consentSchema.nullable().meta({ description: 'The consent recorded for the mandate an OFF_SESSION setup makes; null for ON_SESSION.' }),
    creationDate: z.string().meta({ description: 'ISO 8601 UTC with milliseconds, ending in Z.' }),
    card: z
      .strictObject({ brand: z.string(), lastFour: z.string(), expiry: z.strictObject({ month: z.string(), year: z.string() }) })
      .nullable()
      .meta({ description: "The card of the latest confirm (the vault's metadata); null before the first." }),
    paymentMethodId: z
      .uuid()
      .nullable()
      .meta({ description: 'The saved card, once SUCCEEDED (an existing card of the customer with its fingerprint, or a new one).' }),
    mandateId: z.uuid().nullable().meta({ description: 'The mandate made, once an OFF_SESSION setup SUCCEEDED.' }),
    lastSetupError: setupErrorSchema.nullable().meta({ description: 'Why the latest confirm failed; null once another starts.' }),
    cancellationReason: z
      .enum(SETUP_CANCELLATION_REASONS)
      .nullable()
      .meta({
        description: `EXPIRED: still unfinished ${SETUP_INTENT_EXPIRY_MINUTES} minutes after its creation.`,
      }),
  })
  .meta({ id: 'SetupIntent', example: SETUP_INTENT_EXAMPLE });

export type SetupIntent = z.infer<typeof setupIntentSchema>;

export function toSetupIntent(intent: SetupIntentRecord): SetupIntent {
  const terms = intent.mandateTerms;
  return {
    id: intent.id,
    customerId: intent.customerId,
    sessionSecret: intent.sessionSecret,
    status: intent.status,
    usage: intent.usage,
    standingInstructionType: terms?.standingInstructionType ?? null,
    contextName: terms?.contextName ?? null,
    maxAmount: terms?.maxAmount ?? null,
    consent: terms === null ? null : toConsent(terms.consent),
    creationDate: intent.createdAt.toISOString(),
    card:
      intent.card === null
        ? null
        : { brand: intent.card.brand, lastFour: intent.card.lastFour, expiry: { month: intent.card.expiry.month, year: intent.card.expiry.year } },
    paymentMethodId: intent.paymentMethodId,
    mandateId: intent.mandateId,
    lastSetupError:
      intent.lastSetupError === null
        ? null
        : { code: intent.lastSetupError.code, declineCode: intent.lastSetupError.declineCode, message: intent.lastSetupError.message },
    cancellationReason: intent.cancellationReason,
  };
}

/** A setup intent as its events carry it: without its session secret (events are never secret). */
export function toSetupIntentEventObject(intent: SetupIntentRecord): object {
  const { sessionSecret: _secret, ...object } = toSetupIntent(intent);
  return object;
}

export const setupIntentListResponseSchema = pageOf(
  'setupIntents',
  setupIntentSchema,
  { items: 'setup intents', order: 'Newest first' },
  { id: 'SetupIntentList', example: { results: 1, setupIntents: [SETUP_INTENT_EXAMPLE], hasMore: false } },
);
