import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { inCurrentTransaction } from '../platform/db/request-transaction';
import { DomainError } from '../platform/errors/domain-error';
import {
  findCustomer,
  findCustomersByExternalReference,
  insertCustomer,
  type CustomerRecord,
} from './customers.repository';
import { MAX_CUSTOMERS_PER_LOOKUP, type CreateCustomerInput } from './customers.schemas';

export class CustomersService {
  constructor(private readonly knex: Knex) {}

  /** Inside an idempotent create, its transaction (see request-transaction.ts). */
  private get db(): Knex {
    return inCurrentTransaction(this.knex);
  }

  /** Creates a payor record under the location. Its id is always ours (time-ordered UUIDv7), never the caller's. */
  async create(locationId: string, input: CreateCustomerInput): Promise<CustomerRecord> {
    return insertCustomer(this.db, {
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
  async get(locationId: string, id: string): Promise<CustomerRecord> {
    const customer = await findCustomer(this.db, locationId, id);
    if (customer === undefined) throw new DomainError('CUSTOMER_NOT_FOUND');
    return customer;
  }

  /** The location's customers carrying the caller's own reference, oldest first. */
  async findByExternalReference(locationId: string, externalReferenceId: string): Promise<CustomerRecord[]> {
    return findCustomersByExternalReference(this.db, locationId, externalReferenceId, MAX_CUSTOMERS_PER_LOOKUP);
  }
}
