import type { Knex } from 'knex';

/**
 * Payment intents: what a hosted checkout is about to charge, for which
 * customer, and the session secret the browser side reads with. Keyed by
 * location like every other table; the customer, when given, must be one of
 * the same location.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table payment_intents (
      location_id                     text        not null,
      id                              uuid        not null,
      external_reference_id           text        not null,
      customer_id                     uuid,
      amount                          integer     not null check (amount between 1 and 99999999),
      currency                        text        not null check (currency ~ '^[A-Z]{3}$'),
      capture_method                  text        not null check (capture_method in ('MANUAL', 'AUTOMATIC')),
      status                          text        not null check (status in ('REQUIRES_PAYMENT_METHOD', 'REQUIRES_CONFIRMATION',
                                        'PROCESSING', 'REQUIRES_CAPTURE', 'SUCCEEDED', 'CANCELED')),
      email                           text,
      tip                             integer     not null default 0 check (tip >= 0),
      payment_method_configuration_id uuid,
      standing_instruction_type       text        check (standing_instruction_type in ('INSTALLMENT', 'RECURRING', 'UNSCHEDULED')),
      off_session                     boolean     not null default false,
      mandate_id                      text,
      session_secret                  text        not null,
      created_at                      timestamptz not null default now(),
      updated_at                      timestamptz not null default now(),
      primary key (location_id, id),
      foreign key (location_id, customer_id) references customers (location_id, id)
    )`);
  await knex.raw(`
    create index payment_intents_by_customer
      on payment_intents (location_id, customer_id)
      where customer_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table payment_intents');
}
