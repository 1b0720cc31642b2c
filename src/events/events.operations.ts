import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { customerIdParamsSchema } from '../customers';
import type { EventsService } from './events.service';
import { eventParamsSchema, eventSchema, toEventResponse } from '../change-log/event-schema';
import { CUSTOMER_EVENT_CURSOR, customerEventsQuerySchema, EVENT_CURSOR, eventListSchema, listEventsQuerySchema } from './events.schemas';
import { pagingProse } from '../platform/validation/page-query';
import type { EventRecord } from '../change-log/event-rows';

const operation = operationsOf<{ events: EventsService }>();
const tag = 'Events';

const pageOf = ({ events, hasMore }: { events: EventRecord[]; hasMore: boolean }) => ({
  status: 200 as const,
  body: { results: events.length, events: events.map(toEventResponse), hasMore },
});

export const listEvents = operation({
  method: 'get',
  path: '/v1/events',
  operationId: 'listEvents',
  tag,
  summary: "List the location's events",
  description: `Every change made under this location, one event each, written in the transaction that made the change: a change that committed always has its event, one that failed never does. ${pagingProse('newest first', EVENT_CURSOR)}`,
  access: { scope: SCOPE.eventsRead },
  query: listEventsQuerySchema,
  responses: { 200: { description: 'A page of events.', schema: eventListSchema } },
  errors: [],
  handle: async ({ db, location, query }, { events }) => pageOf(await events.list(db, location, query)),
});

export const getEvent = operation({
  method: 'get',
  path: '/v1/events/{id}',
  operationId: 'getEvent',
  tag,
  summary: 'Read an event',
  description: "An event of this location; another location's event is a 404.",
  access: { scope: SCOPE.eventsRead },
  params: eventParamsSchema,
  responses: { 200: { description: 'The event.', schema: eventSchema } },
  errors: ['EVENT_NOT_FOUND'],
  handle: async ({ db, location, params }, { events }) => ({ status: 200, body: toEventResponse(await events.get(db, location, params.id)) }),
});

export const listCustomerEvents = operation({
  method: 'get',
  path: '/v1/customers/{id}/events',
  operationId: 'listCustomerEvents',
  tag,
  summary: "A customer's history",
  description: `The events of one customer: its creation, its cards and defaults, its payment intents, each with the client (\`clientId\`) and request (\`requestId\`, \`idempotencyKey\`) that made it. ${pagingProse('newest first', CUSTOMER_EVENT_CURSOR)}`,
  access: { scope: SCOPE.eventsRead },
  params: customerIdParamsSchema,
  query: customerEventsQuerySchema,
  responses: { 200: { description: "A page of the customer's events.", schema: eventListSchema } },
  errors: ['CUSTOMER_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { events }) => pageOf(await events.ofCustomer(db, location, params.id, query)),
});

export const eventsOperations = [listEvents, getEvent, listCustomerEvents];
