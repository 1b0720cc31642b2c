import type { Knex } from 'knex';

/**
 * Refunds of a captured intent. The intent keeps what was captured, when,
 * and how much of it is refunded or being refunded (`amount_refunded`
 * counts PENDING and SUCCEEDED refunds): a refund takes its amount from
 * there in one guarded update, so racing refunds never pass the captured
 * amount. Intents captured before this migration take their captured amount
 * from their latest payment, and their last change as the capture's time.
 *
 * The sandbox processor remembers a refund like its other operations, with
 * when a refund it answered later is done (`settles_at`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table payment_intents
      add column amount_captured integer not null default 0,
      add column amount_refunded integer not null default 0,
      add column captured_at     timestamptz,
      add constraint payment_intents_refunds_within_captured check (amount_refunded between 0 and amount_captured)`);
  await knex.raw(`
    update payment_intents
       set amount_captured = (latest_payment ->> 'amount')::integer, captured_at = updated_at
     where status = 'SUCCEEDED' and latest_payment is not null`);
  await knex.raw(`
    create table refunds (
      location_id       text        not null,
      id                uuid        not null,
      payment_intent_id uuid        not null,
      amount            integer     not null check (amount > 0),
      reason            text        check (reason in ('DUPLICATE', 'FRAUDULENT', 'REQUESTED_BY_CUSTOMER')),
      status            text        not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
      failure_code      text,
      created_at        timestamptz not null default now(),
      updated_at        timestamptz not null default now(),
      primary key (location_id, id),
      foreign key (location_id, payment_intent_id) references payment_intents (location_id, id)
    )`);
  // An intent's refunds, newest first (the list), and the sweep's PENDING ones, oldest first.
  await knex.raw('create index refunds_of_intent on refunds (location_id, payment_intent_id, id)');
  await knex.raw(`create index refunds_pending on refunds (updated_at) where status = 'PENDING'`);
  await knex.raw('alter table sandbox_processor_operations drop constraint sandbox_processor_operations_operation_check');
  await knex.raw(`
    alter table sandbox_processor_operations
      add constraint sandbox_processor_operations_operation_check check (operation in ('authorize', 'capture', 'void', 'refund')),
      add column settles_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`delete from sandbox_processor_operations where operation = 'refund'`);
  await knex.raw(`
    alter table sandbox_processor_operations
      drop column settles_at,
      drop constraint sandbox_processor_operations_operation_check,
      add constraint sandbox_processor_operations_operation_check check (operation in ('authorize', 'capture', 'void'))`);
  await knex.raw('drop table refunds');
  await knex.raw(`
    alter table payment_intents
      drop constraint payment_intents_refunds_within_captured,
      drop column captured_at,
      drop column amount_refunded,
      drop column amount_captured`);
}
