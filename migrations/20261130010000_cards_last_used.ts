import type { Knex } from 'knex';

/**
 * When a saved card last paid (Hyperswitch's `last_used_at`): set in the
 * transaction that records an approved authorization with it, never by a
 * decline. The customer's card list is ordered by it, after the defaults.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table payment_methods add column last_used_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table payment_methods drop column last_used_at');
}
