import type { Knex } from 'knex';

/**
 * A customer's events in id order, beside their events by type
 * (20261202010000_lists_at_size): a customer's history without a type is
 * read from it with one index descent. Read by type, it took a descent for
 * each of the event types, whether the customer had any of that type or not,
 * about a hundred buffers a page at a million customers (docs/performance.md,
 * Growth). A history filtered by type still reads the index by type.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index events_of_customer on events (location_id, customer_id, id) where customer_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index events_of_customer');
}
