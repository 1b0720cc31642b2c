import { z } from 'zod';
import { uuidValue } from '../platform/validation/text.schemas';
import type { EventRecord } from './event-rows';
import { EVENT_TYPES } from './event-types';

/*
 * An event as integrators receive it: in /v1/events and as the body of a
 * webhook delivery, one shape for both.
 */

export const eventParamsSchema = z.object({ id: uuidValue.meta({ description: 'The event.', param: { id: 'EventId' } }) });

export const EVENT_EXAMPLE = {
  id: '019ab3c5-0a1b-7c2d-8e3f-405162738495',
  type: 'default_payment_method.set',
  createdAt: '2026-11-23T20:41:07.123Z',
  locationId: 'store-1',
  customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9',
  requestId: '6f1c0e9a-2b7d-4d0e-9c55-1f7a3e2b9d40',
  idempotencyKey: null,
  clientId: 'checkout-backend',
  data: {
    object: { paymentMethodId: '019ab3c4-7d2e-7f10-9a4b-5c6d7e8f9012', contextName: 'web-checkout' },
    previous: { paymentMethodId: '019ab3c4-6a1b-7c2d-8e3f-405162738495' },
  },
};

export const eventSchema = z
  .strictObject({
    id: z.uuid().meta({ description: 'The event; also the `webhook-id` of its deliveries.' }),
    type: z.enum(EVENT_TYPES),
    createdAt: z.string().meta({ description: 'When the change committed, ISO 8601 UTC with milliseconds.' }),
    locationId: z.string().meta({ description: 'The location (Platform-Restaurant-External-ID) the change was made under.' }),
    customerId: z.uuid().nullable().meta({ description: 'The customer the change concerns; null for an intent without one.' }),
    requestId: z.string().nullable().meta({ description: 'The request that made the change (its X-Request-Id).' }),
    idempotencyKey: z.string().nullable().meta({ description: 'The Idempotency-Key that request sent, if any.' }),
    clientId: z.string().nullable().meta({ description: 'The API client that made the change.' }),
    data: z.strictObject({
      object: z.record(z.string(), z.unknown()).meta({
        description:
          'The resource as the API answers it after the change (a customer, a payment method, a default binding, a payment intent without its session secret); for a removal, as it last was.',
      }),
      previous: z
        .record(z.string(), z.unknown())
        .nullable()
        .meta({ description: 'The changed fields as they were before the change; null for a creation or a removal.' }),
    }),
  })
  .meta({ id: 'Event', example: EVENT_EXAMPLE });

export type EventResponse = z.infer<typeof eventSchema>;

export function toEventResponse(event: EventRecord): EventResponse {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    locationId: event.locationId,
    customerId: event.customerId,
    requestId: event.requestId,
    idempotencyKey: event.idempotencyKey,
    clientId: event.clientId,
    data: event.data,
  };
}
