import type { Knex } from 'knex';
import { isOrWasCustomer } from '../customers';
import { DomainError } from '../platform/errors/domain-error';
import { findEvent, listEvents, type EventQuery, type EventRecord } from '../change-log/event-rows';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { CUSTOMER_EVENT_CURSOR, EVENT_CURSOR } from './events.schemas';

/** The change log, read: the location's events, one event, a customer's history. */
export class EventsService {
  async list(db: Knex, locationId: string, query: EventQuery): Promise<{ events: EventRecord[]; hasMore: boolean }> {
    await refuseUnknownCursor(query.startingAfter, EVENT_CURSOR, async (after) => (await findEvent(db, locationId, after)) !== undefined);
    return listEvents(db, locationId, query);
  }

  async get(db: Knex, locationId: string, id: string): Promise<EventRecord> {
    const event = await findEvent(db, locationId, id);
    if (event === undefined) throw new DomainError('EVENT_NOT_FOUND');
    return event;
  }

  /**
   * One customer's events: a customer of the location, or one erased since
   * (its history stays readable, without its personal data); any other id is a 404.
   */
  async ofCustomer(
    db: Knex,
    locationId: string,
    customerId: string,
    query: Omit<EventQuery, 'customerId'>,
  ): Promise<{ events: EventRecord[]; hasMore: boolean }> {
    await refuseUnknownCursor(query.startingAfter, CUSTOMER_EVENT_CURSOR, async (after) => (await findEvent(db, locationId, after))?.customerId === customerId);
    const page = await listEvents(db, locationId, { ...query, customerId });
    if (page.events.length === 0 && !(await isOrWasCustomer(db, locationId, customerId))) throw new DomainError('CUSTOMER_NOT_FOUND');
    return page;
  }
}
