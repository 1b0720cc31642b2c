import type { Knex } from 'knex';

/**
 * What a checkout's confirm, capture and void need on the intent: the card
 * attached or paid with, the attempt counter the processor's idempotency keys
 * are made of, the latest payment and error as the API shows them, the
 * cancellation's reason and when an authorization must be captured by. The
 * two sweeps (capture window, stuck PROCESSING) read small partial indexes.
 *
 * `sandbox_processor_operations` is the sandbox processor's own memory: what
 * it answered for each idempotency key, so that asking again (a retry, a
 * recovery after a crash) replays the answer instead of charging twice. A
 * real processor keeps this on its side.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table payment_intents
      add column payment_method_id    uuid,
      add column payment_attempts     integer not null default 0,
      add column latest_payment       jsonb,
      add column last_payment_error   jsonb,
      add column processor_reference  text,
      add column capture_before       timestamptz,
      add column cancellation_reason  text check (cancellation_reason in
                                        ('DUPLICATE', 'FRAUDULENT', 'REQUESTED_BY_CUSTOMER', 'ABANDONED', 'AUTOMATIC'))`);
  await knex.raw(`
    create index payment_intents_awaiting_capture
      on payment_intents (capture_before)
      where status = 'REQUIRES_CAPTURE'`);
  await knex.raw(`
    create index payment_intents_processing
      on payment_intents (updated_at)
      where status = 'PROCESSING'`);
  // The list's filters: by reference (an order's intents), by status, newest first.
  await knex.raw('create index payment_intents_by_reference on payment_intents (location_id, external_reference_id, id)');
  await knex.raw('create index payment_intents_by_status on payment_intents (location_id, status, id)');
  await knex.raw(`
    create table sandbox_processor_operations (
      location_id     text        not null,
      idempotency_key text        not null,
      operation       text        not null check (operation in ('authorize', 'capture', 'void')),
      amount          integer,
      outcome         jsonb       not null,
      -- An authorization's state, which its capture and void move (null on their own rows).
      state           text        check (state in ('authorized', 'captured', 'voided')),
      captured_amount integer,
      capture_fails   boolean     not null default false,
      created_at      timestamptz not null default now(),
      primary key (location_id, idempotency_key)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table sandbox_processor_operations');
  await knex.raw('drop index payment_intents_by_status');
  await knex.raw('drop index payment_intents_by_reference');
  await knex.raw('drop index payment_intents_processing');
  await knex.raw('drop index payment_intents_awaiting_capture');
  await knex.raw(`
    alter table payment_intents
      drop column payment_method_id, drop column payment_attempts, drop column latest_payment,
      drop column last_payment_error, drop column processor_reference, drop column capture_before,
      drop column cancellation_reason`);
}
