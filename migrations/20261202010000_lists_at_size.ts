import type { Knex } from 'knex';

/**
 * Indexes for lists that read a page however large a location grows
 * (docs/performance.md, Growth): the location's events of one type in id
 * order, for the events list's `type` filter; a customer's events by type
 * in id order (in place of its events in id order), for a customer's history
 * with or without a type; a customer's intents in id
 * order, for `GET /v1/payment-intents?customerId=`, which the index by
 * customer alone served by sorting all of the customer's intents; and an
 * endpoint's attempts by outcome in id order (in place of its attempts in id
 * order), so that `?outcome=FAILED` reads a page however many succeeded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index events_of_type on events (location_id, type, id)');
  await knex.raw('create index events_of_customer_by_type on events (location_id, customer_id, type, id) where customer_id is not null');
  await knex.raw('drop index events_of_customer');
  await knex.raw('create index payment_intents_of_customer on payment_intents (location_id, customer_id, id) where customer_id is not null');
  await knex.raw('drop index payment_intents_by_customer');
  await knex.raw('create index webhook_attempts_of_endpoint_by_outcome on webhook_delivery_attempts (location_id, endpoint_id, outcome, id)');
  await knex.raw('drop index webhook_attempts_of_endpoint');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index webhook_attempts_of_endpoint on webhook_delivery_attempts (location_id, endpoint_id, id)');
  await knex.raw('drop index webhook_attempts_of_endpoint_by_outcome');
  await knex.raw('create index payment_intents_by_customer on payment_intents (location_id, customer_id) where customer_id is not null');
  await knex.raw('drop index payment_intents_of_customer');
  await knex.raw('create index events_of_customer on events (location_id, customer_id, id) where customer_id is not null');
  await knex.raw('drop index events_of_customer_by_type');
  await knex.raw('drop index events_of_type');
}
