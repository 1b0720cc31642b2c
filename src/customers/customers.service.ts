import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { eventBindings } from '../events/event-log';
import type { WriteContext } from '../platform/http/request-context';
import { DomainError } from '../platform/errors/domain-error';
import { findCustomer, findCustomerByExternalReference, insertOrFindCustomer, type CustomerRecord } from './customers.repository';
import { toCustomerResponse, type CreateCustomerInput } from './customers.schemas';

/**
 * Customer records. Each method acts on the `db` it is given: the pool, or the
 * transaction of the request's Idempotency-Key. A write records its event in
 * the transaction that makes it.
 */
export class CustomersService {
  /**
   * Creates a payor record under the location; its id is always ours
   * (time-ordered UUIDv7), never the caller's. A location holds one customer
   * per externalReferenceId: a create with a reference already held answers
   * that customer, unchanged (Toast's get-or-create), `created` false, and
   * records no event: nothing changed.
   */
  async create(write: WriteContext, input: CreateCustomerInput): Promise<{ customer: CustomerRecord; created: boolean }> {
    const customer = {
      locationId: write.locationId,
      id: uuidv7(),
      externalReferenceId: input.externalReferenceId ?? null,
      description: input.description ?? null,
    };
    // The event is written by the insert's own statement (the hottest write: one round trip), only if it inserts.
    const event = eventBindings(write.origin, 'customer.created', { object: toCustomerResponse({ ...customer, createdAt: new Date() }), previous: null });
    return insertOrFindCustomer(write.db, customer, event);
  }

  /**
   * A customer of another location answers exactly like one that does not
   * exist: a caller cannot learn that an id is in use elsewhere.
   */
  async get(db: Knex, locationId: string, id: string): Promise<CustomerRecord> {
    const customer = await findCustomer(db, locationId, id);
    if (customer === undefined) throw new DomainError('CUSTOMER_NOT_FOUND');
    return customer;
  }

  /** The location's customer carrying the caller's own reference, if any. */
  async findByExternalReference(db: Knex, locationId: string, externalReferenceId: string): Promise<CustomerRecord | undefined> {
    return findCustomerByExternalReference(db, locationId, externalReferenceId);
  }
}
