import type { Knex } from 'knex';

/**
 * Partial authorization (Toast's `paymentMethodOptions.card.partialAuthorization`):
 * whether the integrator takes an authorization of less than the amount, and
 * the amount it asked for once one was (the intent's `amount` becomes what was
 * authorized; the rest is left to another intent).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table payment_intents
      add column partial_authorization boolean not null default false,
      add column amount_requested      integer`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table payment_intents drop column amount_requested, drop column partial_authorization');
}
