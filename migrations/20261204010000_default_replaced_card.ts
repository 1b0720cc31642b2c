import type { Knex } from 'knex';

/**
 * The card a default binding replaced, set by the upsert that replaces it
 * (from the row as ON CONFLICT found it, the latest committed): the
 * `default_payment_method.set` event's `previous`. Read in the statement's
 * own snapshot instead, two first sets of one context racing each other
 * both saw no binding and both recorded `previous: null`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table default_payment_methods add column replaced_payment_method_id uuid');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table default_payment_methods drop column replaced_payment_method_id');
}
