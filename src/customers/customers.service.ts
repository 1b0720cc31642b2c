import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { DomainError } from '../platform/errors/domain-error';
import { findCustomer, findCustomerByExternalReference, insertOrFindCustomer, type CustomerRecord } from './customers.repository';
import type { CreateCustomerInput } from './customers.schemas';

/** Customer records. Each method acts on the `db` it is given: the pool, or the transaction of the request's Idempotency-Key. */
export class CustomersService {
  /**
   * Creates a payor record under the location; its id is always ours
   * (time-ordered UUIDv7), never the caller's. A location holds one customer
   * per externalReferenceId: a create with a reference already held answers
   * that customer, unchanged (Toast's get-or-create), `created` false.
   */
  async create(db: Knex, locationId: string, input: CreateCustomerInput): Promise<{ customer: CustomerRecord; created: boolean }> {
    return insertOrFindCustomer(db, {
      locationId,
      id: uuidv7(),
      externalReferenceId: input.externalReferenceId ?? null,
      description: input.description ?? null,
    });
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
