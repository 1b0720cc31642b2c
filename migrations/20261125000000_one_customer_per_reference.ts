import type { Knex } from 'knex';

/**
 * A location holds at most one customer per externalReferenceId (Toast's
 * rule: a create with a reference already held answers that customer). The
 * unique index cannot be built over duplicates, so those are resolved first,
 * losing nothing:
 *
 * - of the customers sharing a reference, the oldest (created first) keeps it;
 * - each younger one keeps its id, description, cards, defaults and intents,
 *   and only its externalReferenceId is cleared (null): it stays readable by
 *   its id, and no longer found by the reference;
 * - each cleared reference is recorded in customer_reference_duplicates, with
 *   the customer that kept it, for an operator to review (README, Decisions).
 *
 * down() drops the index and the record; cleared references stay cleared.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table customer_reference_duplicates (
      location_id            text not null,
      customer_id            uuid not null,
      external_reference_id  text not null,
      kept_by_customer_id    uuid not null,
      cleared_at             timestamptz not null default now(),
      primary key (location_id, customer_id),
      foreign key (location_id, customer_id) references customers (location_id, id) on delete cascade
    )`);
  await knex.raw(`
    with ranked as (
      select location_id, id, external_reference_id,
             first_value(id) over (partition by location_id, external_reference_id order by created_at, id) as kept
        from customers
       where external_reference_id is not null
    )
    insert into customer_reference_duplicates (location_id, customer_id, external_reference_id, kept_by_customer_id)
    select location_id, id, external_reference_id, kept from ranked where id <> kept`);
  await knex.raw(`
    update customers c set external_reference_id = null, updated_at = now()
      from customer_reference_duplicates d
     where d.location_id = c.location_id and d.customer_id = c.id`);
  // Replaces the plain lookup index: the same columns, now unique (created_at, id no longer order one reference's rows).
  await knex.raw(`
    create unique index customers_one_per_external_reference
      on customers (location_id, external_reference_id)
      where external_reference_id is not null`);
  await knex.raw('drop index customers_by_external_reference');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create index customers_by_external_reference
      on customers (location_id, external_reference_id, created_at, id)
      where external_reference_id is not null`);
  await knex.raw('drop index customers_one_per_external_reference');
  await knex.raw('drop table customer_reference_duplicates');
}
