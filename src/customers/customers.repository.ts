import type { Knex } from 'knex';
import { runRecording, statementRecordingEvent, type BoundEvent } from '../change-log/record-events';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';

export interface CustomerRecord {
  locationId: string;
  id: string;
  externalReferenceId: string | null;
  description: string | null;
  createdAt: Date;
}

interface CustomerRow {
  location_id: string;
  id: string;
  external_reference_id: string | null;
  description: string | null;
  created_at: Date;
}

const COLUMNS = ['location_id', 'id', 'external_reference_id', 'description', 'created_at'];

function toRecord(row: CustomerRow): CustomerRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    externalReferenceId: row.external_reference_id,
    description: row.description,
    createdAt: row.created_at,
  };
}

const INSERT_OR_FIND_CUSTOMER = statementRecordingEvent('insert_or_find_customer', {
  write: `inserted as (
     insert into customers (location_id, id, external_reference_id, description, created_at, updated_at)
     values (@location_id, @id, @external_reference_id, @description, now(), now())
     on conflict (location_id, external_reference_id) where external_reference_id is not null do nothing
     returning ${COLUMNS.join(', ')}
   )`,
  event: { source: 'inserted', customerId: 'inserted.id' },
  answer: `select ${COLUMNS.join(', ')}, true as created from inserted
   union all
   select ${COLUMNS.join(', ')}, false as created from customers
    where location_id = @location_id and external_reference_id = @external_reference_id and not exists (select 1 from inserted)`,
});

const BY_EXTERNAL_REFERENCE = preparedStatement(
  'customer_by_external_reference',
  `select ${COLUMNS.join(', ')} from customers where location_id = ? and external_reference_id = ?`,
);

/**
 * Creates the customer and records its `customer.created` event, in one statement, unless
 * the location already has a customer with its externalReferenceId: then
 * that one, unchanged (`created` false), and no event. The unique index
 * decides, so concurrent creates with one reference make one customer. A
 * create that lost the race to a transaction which committed after this
 * statement began does not see that row in the statement's own snapshot,
 * and reads it with a second statement.
 */
export async function insertOrFindCustomer(
  db: Knex | Knex.Transaction,
  customer: Pick<CustomerRecord, 'locationId' | 'id' | 'externalReferenceId' | 'description'>,
  event: Pick<BoundEvent, 'origin' | 'object'>,
): Promise<{ customer: CustomerRecord; created: boolean }> {
  const values = { location_id: customer.locationId, id: customer.id, external_reference_id: customer.externalReferenceId, description: customer.description };
  const [row] = await runRecording<CustomerRow & { created: boolean }>(db, INSERT_OR_FIND_CUSTOMER, values, {
    ...event,
    type: 'customer.created',
    previous: null,
  });
  if (row !== undefined) return { customer: toRecord(row), created: row.created };
  const existing = await findCustomerByExternalReference(db, customer.locationId, customer.externalReferenceId as string);
  if (existing === undefined) throw new Error('a customer with this externalReferenceId neither inserted nor found');
  return { customer: existing, created: false };
}

const CUSTOMER_BY_ID = preparedStatement('customer_by_id', `select ${COLUMNS.join(', ')} from customers where location_id = ? and id = ?`);

export async function findCustomer(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<CustomerRecord | undefined> {
  const [row] = await runPrepared<CustomerRow>(db, CUSTOMER_BY_ID, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

const CUSTOMER_EXISTS = preparedStatement('customer_exists', 'select exists (select 1 from customers where location_id = ? and id = ?) as found');

export async function customerExists(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<boolean> {
  const [row] = await runPrepared<{ found: boolean }>(db, CUSTOMER_EXISTS, [locationId, id]);
  return row?.found === true;
}

/** The location's one customer with this reference (a unique index keeps it to one). */
export async function findCustomerByExternalReference(
  db: Knex | Knex.Transaction,
  locationId: string,
  externalReferenceId: string,
): Promise<CustomerRecord | undefined> {
  const [row] = await runPrepared<CustomerRow>(db, BY_EXTERNAL_REFERENCE, [locationId, externalReferenceId]);
  return row === undefined ? undefined : toRecord(row);
}

export interface CustomerQuery extends PageQuery {
  externalReferenceId?: string;
}

/**
 * A page of the location's customers, oldest first (cursor-page.ts): a walk
 * never skips or repeats a customer that existed when it began, whatever is
 * created meanwhile (new ones sort after it). The primary key (location, id)
 * serves the order.
 */
export async function listCustomers(db: Knex, locationId: string, query: CustomerQuery): Promise<{ customers: CustomerRecord[]; hasMore: boolean }> {
  const rows = db('customers').select(COLUMNS).where({ location_id: locationId });
  if (query.externalReferenceId !== undefined) rows.where({ external_reference_id: query.externalReferenceId });
  const page = await cursorPage<CustomerRow>(rows, query, 'asc');
  return { customers: page.rows.map(toRecord), hasMore: page.hasMore };
}

const CUSTOMER_FOR_UPDATE = preparedStatement('customer_for_update', `select ${COLUMNS.join(', ')} from customers where location_id = ? and id = ? for update`);

/** The customer, locked until the transaction ends (an update reads it first, for its event's `previous`). */
export async function lockCustomer(trx: Knex.Transaction, locationId: string, id: string): Promise<CustomerRecord | undefined> {
  const [row] = await runPrepared<CustomerRow>(trx, CUSTOMER_FOR_UPDATE, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/** A field is set only when its `set_` flag is: an absent field is left as it is, a null one is cleared. */
const UPDATE_CUSTOMER = namedStatement(
  'update_customer',
  `update customers
      set external_reference_id = case when @set_external_reference_id::boolean then @external_reference_id::text else external_reference_id end,
          description = case when @set_description::boolean then @description::text else description end,
          updated_at = now()
    where location_id = @location_id and id = @id
    returning ${COLUMNS.join(', ')}`,
);

export async function updateCustomer(
  trx: Knex.Transaction,
  locationId: string,
  id: string,
  changes: Partial<Pick<CustomerRecord, 'externalReferenceId' | 'description'>>,
): Promise<CustomerRecord> {
  const [row] = await runNamed<CustomerRow>(trx, UPDATE_CUSTOMER, {
    location_id: locationId,
    id,
    set_external_reference_id: changes.externalReferenceId !== undefined,
    external_reference_id: changes.externalReferenceId ?? null,
    set_description: changes.description !== undefined,
    description: changes.description ?? null,
  });
  if (row === undefined) throw new Error('the customer to update is gone although it was locked');
  return toRecord(row);
}

const IS_OR_WAS_CUSTOMER = namedStatement(
  'is_or_was_customer',
  `select exists (select 1 from customers where location_id = @location_id and id = @id)
       or exists (select 1 from erased_customers where location_id = @location_id and id = @id) as known`,
);

/** Whether `id` is, or was until erased, a customer of the location: a list cursor must be, and a history can be read. */
export async function isOrWasCustomer(db: Knex, locationId: string, id: string): Promise<boolean> {
  const [row] = await runNamed<{ known: boolean }>(db, IS_OR_WAS_CUSTOMER, { location_id: locationId, id });
  return row?.known === true;
}

const DELETE_CUSTOMER_LEAVING_ITS_ID = preparedStatement(
  'delete_customer_leaving_its_id',
  `with duplicates as (
     delete from customer_reference_duplicates where location_id = ? and (customer_id = ? or kept_by_customer_id = ?)
   ),
   gone as (
     delete from customers where location_id = ? and id = ?
   )
   insert into erased_customers (location_id, id) values (?, ?)`,
);

/**
 * The last step of an erasure: the record of a reference it shared, and the
 * customer itself, leaving only its id in `erased_customers` (src/flows/customer-erasure).
 */
export async function deleteCustomerLeavingItsId(trx: Knex.Transaction, locationId: string, id: string): Promise<void> {
  await runPrepared(trx, DELETE_CUSTOMER_LEAVING_ITS_ID, [locationId, id, id, locationId, id, locationId, id]);
}
