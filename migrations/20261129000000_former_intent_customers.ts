import type { Knex } from 'knex';

/**
 * An erasure covers every intent that ever was the customer's, not only those
 * that are now: `former_intent_customers` keeps, for each intent moved away
 * from a customer (detached, or given to another), whose it was, so the
 * erasure of that customer still finds it however long ago that was (events
 * may have been purged by then). Written by the move in its transaction.
 *
 * `events_of_intent` finds an intent's events whatever customer they were
 * recorded with (an intent's events before it was attached name none): an
 * erasure nulls the e-mail in each. Partial, so only intents' events pay
 * for it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table former_intent_customers (
      location_id       text not null,
      customer_id       uuid not null,
      payment_intent_id uuid not null,
      primary key (location_id, customer_id, payment_intent_id)
    )`);
  await knex.raw(`create index events_of_intent on events (location_id, (data #>> '{object,id}')) where type like 'payment_intent.%'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index events_of_intent');
  await knex.raw('drop table former_intent_customers');
}
