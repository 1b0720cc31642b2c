import type { Knex } from 'knex';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';

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

const INSERT_CUSTOMER = preparedStatement(
  'insert_customer',
  `insert into customers (location_id, id, external_reference_id, description) values (?, ?, ?, ?)
   returning ${COLUMNS.join(', ')}`,
);

export async function insertCustomer(
  db: Knex | Knex.Transaction,
  customer: Pick<CustomerRecord, 'locationId' | 'id' | 'externalReferenceId' | 'description'>,
): Promise<CustomerRecord> {
  const [row] = await runPrepared<CustomerRow>(db, INSERT_CUSTOMER, [
    customer.locationId,
    customer.id,
    customer.externalReferenceId,
    customer.description,
  ]);
  return toRecord(row as CustomerRow);
}

export async function findCustomer(
  db: Knex | Knex.Transaction,
  locationId: string,
  id: string,
): Promise<CustomerRecord | undefined> {
  const row = await db('customers').select(COLUMNS).where({ location_id: locationId, id }).first();
  return row === undefined ? undefined : toRecord(row as CustomerRow);
}

export async function customerExists(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<boolean> {
  const row = await db('customers').select(db.raw('1')).where({ location_id: locationId, id }).first();
  return row !== undefined;
}

export async function findCustomersByExternalReference(
  db: Knex | Knex.Transaction,
  locationId: string,
  externalReferenceId: string,
  limit: number,
): Promise<CustomerRecord[]> {
  const rows = await db('customers')
    .select(COLUMNS)
    .where({ location_id: locationId, external_reference_id: externalReferenceId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit);
  return (rows as CustomerRow[]).map(toRecord);
}
