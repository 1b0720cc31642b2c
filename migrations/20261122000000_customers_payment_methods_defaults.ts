import type { Knex } from 'knex';

/**
 * Customers, their saved cards and per-context default cards.
 *
 * Every key starts with the location, and the foreign keys carry it too, so the
 * database itself refuses a card under another location's customer or a default
 * pointing at another customer's card. Deleting a card cascades to the defaults
 * bound to it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table customers (
      location_id           text        not null,
      id                    uuid        not null,
      external_reference_id text,
      description           text,
      created_at            timestamptz not null default now(),
      updated_at            timestamptz not null default now(),
      primary key (location_id, id)
    )`);
  await knex.raw(`
    create index customers_by_external_reference
      on customers (location_id, external_reference_id, created_at, id)
      where external_reference_id is not null`);

  await knex.raw(`
    create table payment_methods (
      location_id text        not null,
      id          uuid        not null,
      customer_id uuid        not null,
      type        text        not null,
      card_brand  text        not null,
      last_four   text        not null check (last_four ~ '^[0-9]{4}$'),
      exp_month   text        not null check (exp_month ~ '^(0[1-9]|1[0-2])$'),
      exp_year    text        not null check (exp_year ~ '^[0-9]{4}$'),
      fingerprint text,
      created_at  timestamptz not null default now(),
      updated_at  timestamptz not null default now(),
      primary key (location_id, id),
      -- The target of the defaults' foreign key, and the index for "this customer's cards".
      unique (location_id, customer_id, id),
      foreign key (location_id, customer_id) references customers (location_id, id) on delete cascade
    )`);
  await knex.raw(`
    create unique index payment_methods_by_fingerprint
      on payment_methods (location_id, customer_id, fingerprint)
      where fingerprint is not null`);

  await knex.raw(`
    create table default_payment_methods (
      location_id       text        not null,
      customer_id       uuid        not null,
      context_name      text        not null,
      payment_method_id uuid        not null,
      created_at        timestamptz not null default now(),
      updated_at        timestamptz not null default now(),
      -- One default per customer and context: concurrent sets upsert into this key.
      primary key (location_id, customer_id, context_name),
      foreign key (location_id, customer_id, payment_method_id)
        references payment_methods (location_id, customer_id, id) on delete cascade
    )`);
  // The cascade from a deleted card looks its defaults up by this.
  await knex.raw(`
    create index default_payment_methods_by_payment_method
      on default_payment_methods (location_id, customer_id, payment_method_id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table default_payment_methods');
  await knex.raw('drop table payment_methods');
  await knex.raw('drop table customers');
}
