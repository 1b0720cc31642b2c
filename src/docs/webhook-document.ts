import { z } from 'zod';
import type { ZodOpenApiObject } from 'zod-openapi';
import { customerResponseSchema } from '../customers/customers.schemas';
import { EVENT_TYPES, resourceOf, type EventType } from '../change-log/event-types';
import { eventSchema } from '../change-log/event-schema';
import { paymentIntentSchema } from '../payment-intents/payment-intents.schemas';
import { defaultPaymentMethodResponseSchema, paymentMethodDataSchema } from '../payment-methods/payment-methods.schemas';
import { mandateSchema } from '../mandates/mandates.schemas';
import { refundSchema } from '../refunds/refunds.schemas';
import { disputeSchema } from '../disputes/disputes.schemas';
import { setupIntentSchema } from '../setup-intents/setup-intents.schemas';
import { batchSchema, locationSettingsSchema, payoutSchema } from '../settlement/settlement.schemas';

/** What `data.object` is, by the resource an event type names. */
const OBJECT_SCHEMAS: Record<string, z.ZodType> = {
  customer: customerResponseSchema,
  payment_method: paymentMethodDataSchema,
  default_payment_method: defaultPaymentMethodResponseSchema,
  payment_intent: paymentIntentSchema
    .omit({ sessionSecret: true })
    .meta({ id: 'PaymentIntentInEvent', description: 'A payment intent as the API answers it, without its session secret.' }),
  setup_intent: setupIntentSchema
    .omit({ sessionSecret: true })
    .meta({ id: 'SetupIntentInEvent', description: 'A setup intent as the API answers it, without its session secret.' }),
  refund: refundSchema,
  dispute: disputeSchema,
  mandate: mandateSchema,
  location_settings: locationSettingsSchema,
  batch: batchSchema,
  payout: payoutSchema,
};

const WHEN: Record<EventType, string> = {
  'customer.created': 'A customer was created (not when a create found one by its externalReferenceId).',
  'customer.updated': "A customer's fields changed; `previous` holds them as they were.",
  'customer.deleted':
    'A customer was erased; `object` is its id, with its personal fields null (and those of its earlier events are nulled too). The removals of its cards, defaults and intents come first, each with its own event.',
  'payment_method.attached': 'A card was saved to a customer.',
  'payment_method.updated': 'A saved card changed (saved again with its fingerprint and another expiry); `previous` holds the expiry it had.',
  'payment_method.detached': 'A card was deleted; `object` is the card as it was. Each default it held is removed first, with its own event.',
  'default_payment_method.set': "A context's default was set or replaced; a replacement's `previous` names the card it replaced.",
  'default_payment_method.removed': 'A default was removed (deleted, or with its card); `object` is the binding as it was.',
  'payment_intent.created': 'A payment intent was created.',
  'payment_intent.updated': "A payment intent's fields changed; `previous` holds them as they were.",
  'payment_intent.canceled': 'A payment intent was canceled; `previous.status` is the status it left.',
  'payment_intent.processing': 'A payment intent moved to PROCESSING.',
  'payment_intent.requires_capture': 'A payment intent moved to REQUIRES_CAPTURE.',
  'payment_intent.succeeded': 'A payment intent moved to SUCCEEDED.',
  'payment_intent.payment_failed': "A payment intent's payment failed; it is back in REQUIRES_PAYMENT_METHOD.",
  'setup_intent.created': 'A setup intent was created (for OFF_SESSION usage, with the consent its mandate will be made from).',
  'setup_intent.succeeded':
    "A setup intent's card was verified and saved (its `payment_method.attached` and, for OFF_SESSION, `mandate.created` are recorded in the same transaction); `object` names both.",
  'setup_intent.setup_failed': "A setup intent's card was declined or not saved (`lastSetupError` says why); it is back in REQUIRES_PAYMENT_METHOD.",
  'setup_intent.canceled':
    'A setup intent was canceled, expired (`cancellationReason` EXPIRED) or its customer erased; `previous.status` is the status it left.',
  'refund.created': 'A refund was made PENDING, its amount taken from what the intent may still refund; the processor is asked next.',
  'refund.succeeded': 'The processor refunded it (at once, or later for a refund it answered later); `previous.status` is PENDING.',
  'refund.failed': 'The processor declined the refund (`failureCode` says why); its amount may be refunded again. `previous.status` is PENDING.',
  'dispute.created': 'A dispute opened (an inquiry, or a chargeback whose amount the intent now holds); `object` is the dispute.',
  'dispute.updated':
    'A dispute changed: evidence staged or submitted, or an inquiry became a chargeback; `previous` holds what changed (`status`, `stage`, `evidence`) as it was.',
  'dispute.funds_withdrawn': "A chargeback's amount and the dispute fee were withdrawn: its DISPUTE_WITHDRAWAL and DISPUTE_FEE ledger lines are written.",
  'dispute.funds_reinstated': "A won chargeback's amount came back (a DISPUTE_REINSTATEMENT line, and DISPUTE_FEE_RETURN when the fee is given back).",
  'dispute.closed': 'A dispute ended: `object.closedBy` says who ended it (MERCHANT, DEADLINE, ISSUER, REFUND); `previous.status` is the status it left.',
  'mandate.created': "A payor's consent to later charges on a saved card was recorded; `object` is the mandate.",
  'mandate.revoked': 'A mandate became INACTIVE (revoked, or its customer erased); no charge is made under it any more. `previous.status` is ACTIVE.',
  'location_settings.updated':
    "The location's settings were changed; `object.scheduled` is the change and the date it takes effect from, `previous` the settings in force when it was made.",
  'batch.closed': "A business day's batch closed: `object` is the batch with its totals, which never change again.",
  'payout.created': "A closed batch's payout was made (PENDING), for the batch's net and what it carried in.",
  'payout.paid': 'A payout arrived on its `arrivalDate`; `previous.status` is the status it left.',
  'payout.failed': 'A payout failed (`failureCode` says why); its amount is carried into the next batch. `previous.status` is the status it left.',
};

const SIGNATURE_HEADERS = [
  { name: 'webhook-id', description: 'The event id: the same on every attempt and redelivery, so a receiver drops duplicates by it.' },
  {
    name: 'webhook-timestamp',
    description: 'Unix seconds when this attempt was signed; refuse ones far from your clock (standard libraries allow 5 minutes).',
  },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the endpoint\u2019s `whsec_` secret; two during the 24 hours after a rotation.',
  },
];

const RECEIVED = 'WebhookReceived';

/** What every webhook shares, declared once and referred to: the signature headers, and the answer a receiver gives. */
export function webhookComponents(): Pick<NonNullable<ZodOpenApiObject['components']>, 'parameters' | 'responses'> {
  return {
    parameters: Object.fromEntries(
      SIGNATURE_HEADERS.map((header) => [
        header.name,
        { in: 'header' as const, name: header.name, required: true, description: header.description, schema: { type: 'string' as const } },
      ]),
    ),
    responses: {
      [RECEIVED]: { description: 'Received. Any 2xx within 10 s counts as delivered; anything else is retried (a 410 disables the endpoint).' },
    },
  };
}

/** `resource.action` → `ResourceActionEvent`, the schema's component name. */
function componentName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Event`;
}

/**
 * The document's `webhooks` (OpenAPI 3.1): one POST per event type, the body
 * being the event with its `type` fixed and its `data.object` typed, and the
 * Standard Webhooks headers that sign it. Built from the schemas the events
 * API answers with.
 */
export function webhookDefinitions(): NonNullable<ZodOpenApiObject['webhooks']> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const object = OBJECT_SCHEMAS[resourceOf(type)] as z.ZodType;
      // The Event (as the events API answers it), with this type's `type` and `data.object`: allOf, so the Event's fields are written once.
      const body = z.intersection(eventSchema, z.object({ type: z.literal(type), data: z.object({ object }) })).meta({ id: componentName(type) });
      return [
        type,
        {
          post: {
            operationId: `webhook.${type}`,
            tags: ['Webhooks'],
            summary: type,
            description: `${WHEN[type]} Delivered to each enabled endpoint subscribed to \`${type}\` or \`*\`.`,
            parameters: SIGNATURE_HEADERS.map((header) => ({ $ref: `#/components/parameters/${header.name}` })),
            requestBody: { required: true, content: { 'application/json': { schema: body } } },
            responses: { '200': { $ref: `#/components/responses/${RECEIVED}` } },
          },
        },
      ];
    }),
  );
}
