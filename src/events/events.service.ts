import type { Knex } from 'knex';
import { customerExists } from '../customers/customers.repository';
import { DomainError } from '../platform/errors/domain-error';
import { findEvent, listEvents, type EventQuery, type EventRecord } from './events.repository';

/** The change log, read: the location's events, one event, a customer's history. */
export class EventsService {
  async list(db: Knex, locationId: string, query: EventQuery): Promise<{ events: EventRecord[]; hasMore: boolean }> {
    return listEvents(db, locationId, query);
  }

  async get(db: Knex, locationId: string, id: string): Promise<EventRecord> {
    const event = await findEvent(db, locationId, id);
    if (event === undefined) throw new DomainError('EVENT_NOT_FOUND');
    return event;
  }

  /**
   * One customer's events. A customer that does not exist and never had an
   * event is a 404; one with events keeps its history readable.
   */
  async ofCustomer(db: Knex, locationId: string, customerId: string, query: Omit<EventQuery, 'customerId'>): Promise<{ events: EventRecord[]; hasMore: boolean }> {
    const page = await listEvents(db, locationId, { ...query, customerId });
    if (page.events.length === 0 && !(await customerExists(db, locationId, customerId))) {
      const anyEvent = await listEvents(db, locationId, { limit: 1, customerId });
      if (anyEvent.events.length === 0) throw new DomainError('CUSTOMER_NOT_FOUND');
    }
    return page;
  }
}
