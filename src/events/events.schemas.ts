import { z } from 'zod';
import { pageOf, pageQuery } from '../platform/validation/page-query';
import { uuidValue } from '../platform/validation/text.schemas';
import { EVENT_EXAMPLE, eventSchema } from '../change-log/event-schema';
import { EVENT_TYPES, resourceOf } from '../change-log/event-types';

const EVENT_RESOURCES = [...new Set(EVENT_TYPES.map(resourceOf))];

const RESOURCE_WILDCARDS = EVENT_RESOURCES.map((resource) => `${resource}.*` as const);

/** `type`: one type exactly, or every type of a resource as `resource.*`; the document lists them all. */
const typeFilter = z.enum([...EVENT_TYPES, ...RESOURCE_WILDCARDS], {
  message: `Must be an event type, or a resource's types as ${RESOURCE_WILDCARDS.join(', ')}.`,
});

/** The page and filters both event lists take. */
const eventsQuery = {
  ...pageQuery({ items: 'Events', item: 'event' }, 'newest first', '019ab3c5-0a1b-7c2d-8e3f-405162738495'),
  type: typeFilter.optional().meta({
    description: 'One event type exactly (`payment_method.attached`), or every type of a resource (`payment_intent.*`).',
    example: 'payment_intent.*',
    // Declared once in the document, as both lists take it.
    param: { id: 'eventType' },
  }),
};

export const listEventsQuerySchema = z.object({
  ...eventsQuery,
  customerId: uuidValue.optional().meta({ description: 'Only the events of this customer.', example: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9' }),
});
export const customerEventsQuerySchema = z.object(eventsQuery);

/** What the events lists' `startingAfter` must be (their descriptions and 400s say the same). */
export const EVENT_CURSOR = 'an event of this location (kept `EVENT_RETENTION_DAYS`, default 90)';
export const CUSTOMER_EVENT_CURSOR = "one of this customer's events (kept `EVENT_RETENTION_DAYS`, default 90)";

export const eventListSchema = pageOf(
  'events',
  eventSchema,
  { items: 'events', order: 'Newest first' },
  { id: 'EventList', example: { results: 1, events: [EVENT_EXAMPLE], hasMore: false } },
);
