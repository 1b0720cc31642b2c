import type { Knex } from 'knex';

/**
 * The ids of erased customers, and nothing else about them: a list walk whose
 * cursor (`startingAfter`) was erased meanwhile goes on, while a cursor that
 * was never a customer of the location is refused.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table erased_customers (
      location_id text        not null,
      id          uuid        not null,
      erased_at   timestamptz not null default now(),
      primary key (location_id, id)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table erased_customers');
}
