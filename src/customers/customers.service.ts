import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { recordEvents } from '../change-log/record-events';
import type { WriteContext } from '../change-log/write-context';
import { clockNow } from '../platform/clock/location-clock';
import { inTransaction } from '../platform/db/in-transaction';
import { DomainError } from '../platform/errors/domain-error';
import {
  findCustomer,
  findCustomerByExternalReference,
  insertOrFindCustomer,
  isOrWasCustomer,
  listCustomers,
  lockCustomer,
  updateCustomer,
  type CustomerQuery,
  type CustomerRecord,
} from './customers.repository';
import { CUSTOMER_CURSOR, toCustomerResponse, type CreateCustomerInput, type UpdateCustomerInput } from './customers.schemas';
import { refuseUnknownCursor } from '../platform/db/page-cursor';

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
    return insertOrFindCustomer(write.db, customer, { origin: write.origin, object: toCustomerResponse({ ...customer, createdAt: clockNow() }) });
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

  /**
   * A page of the location's customers. The cursor must be a customer of the
   * location, or one erased since: any other id (another location's, or none
   * at all) is a 400, the same for both, so it tells nothing about other locations.
   */
  async list(db: Knex, locationId: string, query: CustomerQuery): Promise<{ customers: CustomerRecord[]; hasMore: boolean }> {
    await refuseUnknownCursor(query.startingAfter, CUSTOMER_CURSOR, (id) => isOrWasCustomer(db, locationId, id));
    return listCustomers(db, locationId, query);
  }

  /**
   * Changes the fields given (`null` clears one), with a `customer.updated`
   * event naming what they were; a change to nothing records nothing. A
   * reference another customer of the location holds is a 409 naming it (the
   * unique index also turns a racing one into a 409).
   */
  async update(write: WriteContext, id: string, input: UpdateCustomerInput): Promise<CustomerRecord> {
    const { locationId } = write;
    return inTransaction(write.db, async (trx) => {
      const current = await lockCustomer(trx, locationId, id);
      if (current === undefined) throw new DomainError('CUSTOMER_NOT_FOUND');
      const changed = (['externalReferenceId', 'description'] as const).filter(
        (field) => input[field] !== undefined && (input[field] ?? null) !== current[field],
      );
      if (changed.length === 0) return current;
      const reference = input.externalReferenceId;
      if (changed.includes('externalReferenceId') && reference !== null && reference !== undefined) {
        const holder = await findCustomerByExternalReference(trx, locationId, reference);
        if (holder !== undefined) throw new DomainError('EXTERNAL_REFERENCE_IN_USE', { fieldName: 'externalReferenceId' });
      }
      const changes = Object.fromEntries(changed.map((field) => [field, input[field] ?? null]));
      const updated = await updateCustomer(trx, locationId, id, changes);
      const previous = Object.fromEntries(changed.map((field) => [field, current[field]]));
      await recordEvents(trx, write, [{ type: 'customer.updated', customerId: id, object: toCustomerResponse(updated), previous }]);
      return updated;
    });
  }
}
