import type { Knex } from 'knex';

/**
 * Setup intents (issue 57, docs/cards-on-file.md): a card saved without a
 * payment, after a $0 verification at the processor, with (for OFF_SESSION
 * usage) the mandate made from the consent recorded here at creation.
 *
 * `session_secret` is sealed as a payment intent's is. `card` is what the
 * latest confirm brought (the vault's metadata, never a number), kept so
 * that an attempt a dead process left PROCESSING can be finished by the
 * recovery sweep. `customer_id` is cut by the customer's erasure, as a
 * payment intent's is, so it has no foreign key. The partial indexes serve
 * the two rules bound to time: the expiry of unfinished setups, and the
 * recovery of those left PROCESSING. The sandbox processor learns the
 * `verify` operation.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table setup_intents (
      location_id               text        not null,
      id                        uuid        not null,
      customer_id               uuid,
      usage                     text        not null check (usage in ('ON_SESSION', 'OFF_SESSION')),
      standing_instruction_type text        check (standing_instruction_type in ('INSTALLMENT', 'RECURRING', 'UNSCHEDULED')),
      context_name              text,
      max_amount                integer,
      consent_accepted_at       timestamptz,
      consent_text_version      text,
      consent_channel           text,
      consent_ip_address        text,
      consent_user_agent        text,
      session_secret            text        not null,
      status                    text        not null check (status in ('REQUIRES_PAYMENT_METHOD', 'PROCESSING', 'SUCCEEDED', 'CANCELED')),
      cancellation_reason       text        check (cancellation_reason in ('REQUESTED_BY_CUSTOMER', 'ABANDONED', 'DUPLICATE', 'EXPIRED')),
      attempts                  integer     not null default 0,
      card                      jsonb,
      last_setup_error          jsonb,
      processor_reference       text,
      payment_method_id         uuid,
      mandate_id                uuid,
      created_at                timestamptz not null,
      updated_at                timestamptz not null,
      primary key (location_id, id),
      check (usage = 'ON_SESSION' or (standing_instruction_type is not null and consent_text_version is not null))
    )`);
  await knex.raw('create index setup_intents_of_customer on setup_intents (location_id, customer_id, id) where customer_id is not null');
  await knex.raw("create index setup_intents_unfinished on setup_intents (created_at) where status = 'REQUIRES_PAYMENT_METHOD'");
  await knex.raw("create index setup_intents_processing on setup_intents (updated_at) where status = 'PROCESSING'");
  await knex.raw('alter table sandbox_processor_operations drop constraint sandbox_processor_operations_operation_check');
  await knex.raw(`
    alter table sandbox_processor_operations
      add constraint sandbox_processor_operations_operation_check check (operation in ('authorize', 'capture', 'void', 'refund', 'verify'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`delete from sandbox_processor_operations where operation = 'verify'`);
  await knex.raw('alter table sandbox_processor_operations drop constraint sandbox_processor_operations_operation_check');
  await knex.raw(`
    alter table sandbox_processor_operations
      add constraint sandbox_processor_operations_operation_check check (operation in ('authorize', 'capture', 'void', 'refund'))`);
  await knex.raw('drop table setup_intents');
}
