import type { Knex } from 'knex';

/**
 * Intents that expire (Toast: "The payment intent expires after 24 hours"):
 * an unpaid intent INTENT_EXPIRY_HOURS after its creation is CANCELED with
 * cancellationReason EXPIRED. The sweep finds them, oldest first, by an
 * index of the unpaid ones alone.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table payment_intents drop constraint payment_intents_cancellation_reason_check');
  await knex.raw(`
    alter table payment_intents add constraint payment_intents_cancellation_reason_check
      check (cancellation_reason in ('DUPLICATE', 'FRAUDULENT', 'REQUESTED_BY_CUSTOMER', 'ABANDONED', 'AUTOMATIC', 'EXPIRED'))`);
  await knex.raw(`create index payment_intents_unpaid on payment_intents (created_at) where status in ('REQUIRES_PAYMENT_METHOD', 'REQUIRES_CONFIRMATION')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payment_intents_unpaid');
  await knex.raw(`update payment_intents set cancellation_reason = 'ABANDONED' where cancellation_reason = 'EXPIRED'`);
  await knex.raw('alter table payment_intents drop constraint payment_intents_cancellation_reason_check');
  await knex.raw(`
    alter table payment_intents add constraint payment_intents_cancellation_reason_check
      check (cancellation_reason in ('DUPLICATE', 'FRAUDULENT', 'REQUESTED_BY_CUSTOMER', 'ABANDONED', 'AUTOMATIC'))`);
}
