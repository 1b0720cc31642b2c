import type { Knex } from 'knex';

/**
 * Cards on file. A payment intent may name the integration context whose
 * default card pays it (`context_name`). Mandates: a payor's recorded consent to be charged later on a saved card
 * (docs/cards-on-file.md). The consent is kept as the payor gave it: when,
 * which text, on which channel, and from where (IP address, user agent:
 * personal data, cleared by an erasure). A mandate outlives the removal of
 * its card while ACTIVE (Toast's rule): `card` keeps what a charge needs of
 * the card as it was when the mandate was made, used once the payor has
 * removed the card, and cleared when the mandate is revoked. No foreign key
 * to the customer or the card: a revoked mandate is the record of a consent
 * once given, kept after both are gone.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table mandates (
      location_id               text        not null,
      id                        uuid        not null,
      customer_id               uuid        not null,
      payment_method_id         uuid        not null,
      context_name              text,
      standing_instruction_type text        not null check (standing_instruction_type in ('RECURRING', 'INSTALLMENT', 'UNSCHEDULED')),
      status                    text        not null check (status in ('ACTIVE', 'INACTIVE')),
      max_amount                integer     check (max_amount > 0),
      consent_accepted_at       timestamptz not null,
      consent_text_version      text        not null,
      consent_channel           text        check (consent_channel in ('ONLINE', 'IN_PERSON', 'PHONE')),
      consent_ip_address        text,
      consent_user_agent        text,
      card                      jsonb,
      created_at                timestamptz not null,
      revoked_at                timestamptz,
      updated_at                timestamptz not null default now(),
      primary key (location_id, id),
      check ((status = 'INACTIVE') = (revoked_at is not null)),
      check ((status = 'ACTIVE') = (card is not null))
    )`);
  // A customer's mandates, newest first (the list), and a card's active ones (its removal, a charge).
  await knex.raw('alter table payment_intents add column context_name text');
  await knex.raw('create index mandates_of_customer on mandates (location_id, customer_id, id)');
  await knex.raw(`create index mandates_of_card on mandates (location_id, payment_method_id) where status = 'ACTIVE'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table mandates');
  await knex.raw('alter table payment_intents drop column context_name');
}
