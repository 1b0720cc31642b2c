import type { Knex } from 'knex';

/**
 * An erasure removes every record of a reference the customer shared: those
 * where it is the duplicate (the primary key finds them) and those where it
 * kept the reference, which this index finds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index customer_reference_duplicates_kept_by on customer_reference_duplicates (location_id, kept_by_customer_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index customer_reference_duplicates_kept_by');
}
