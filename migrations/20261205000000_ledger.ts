import type { Knex } from 'knex';

/**
 * Where money lands (issue 55, docs/settlement.md): each location's settings
 * as versions (a change takes effect from a business day not yet begun, so a
 * version is never edited), one ledger line per money movement, written in the
 * movement's own statement, and the closed batches and their payouts.
 *
 * "One line per movement" is the unique key (location, source, type): a
 * retry, a crash between two statements, or three replicas' sweeps never
 * write a second. A line waits with no batch until its business day closes;
 * the close gives it its batch (and a late line, committed after its day
 * closed, the next day's, with `redated_from`). Only closed batches are rows:
 * an open one is the lines waiting, summed when read.
 *
 * Captures made before this migration have no line: the ledger starts here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table location_settings (
      location_id        text        not null,
      effective_from     date        not null,
      time_zone          text        not null,
      closeout_hour      smallint    not null check (closeout_hour between 0 and 12),
      fee_percent_bps    integer     not null check (fee_percent_bps between 0 and 10000),
      fee_fixed          integer     not null check (fee_fixed >= 0),
      refund_returns_fee boolean     not null,
      dispute_fee        integer     not null check (dispute_fee >= 0),
      bank_holidays      date[]      not null default '{}',
      created_at         timestamptz not null default now(),
      primary key (location_id, effective_from)
    )`);
  await knex.raw(`
    create table ledger_lines (
      location_id            text        not null,
      id                     uuid        not null default gen_random_uuid(),
      type                   text        not null,
      source_type            text        not null,
      source_id              uuid        not null,
      payment_intent_id      uuid,
      refund_id              uuid,
      external_reference_id  text,
      occurred_at            timestamptz not null,
      business_date          date        not null,
      original_business_date date,
      currency               text        not null,
      gross                  bigint      not null,
      tip                    bigint      not null default 0,
      fee                    bigint      not null default 0,
      net                    bigint      not null,
      card_brand             text,
      card_last_four         text,
      batch_id               uuid,
      redated_from           date,
      primary key (location_id, id),
      unique (location_id, source_type, source_id, type),
      check (net = gross - fee)
    )`);
  // The lines waiting for their day's close (the open batch's running totals, and the close's own pick).
  await knex.raw('create index ledger_lines_waiting on ledger_lines (location_id, business_date, currency) where batch_id is null');
  // A batch's lines in the file's order, and a payment's trail.
  await knex.raw('create index ledger_lines_of_batch on ledger_lines (location_id, batch_id, id) where batch_id is not null');
  await knex.raw('create index ledger_lines_of_intent on ledger_lines (location_id, payment_intent_id, id) where payment_intent_id is not null');
  await knex.raw(`
    create table ledger_batches (
      location_id   text        not null,
      id            uuid        not null,
      business_date date        not null,
      currency      text        not null,
      time_zone     text        not null,
      closeout_hour smallint    not null,
      opens_at      timestamptz not null,
      closes_at     timestamptz not null,
      closed_at     timestamptz not null,
      counts        jsonb       not null,
      totals        jsonb       not null,
      payout_id     uuid,
      seal          text        not null,
      primary key (location_id, id),
      unique (location_id, business_date, currency)
    )`);
  await knex.raw(`
    create table payouts (
      location_id   text        not null,
      id            uuid        not null,
      batch_id      uuid        not null,
      amount        bigint      not null check (amount > 0),
      currency      text        not null,
      status        text        not null check (status in ('PENDING', 'IN_TRANSIT', 'PAID', 'FAILED')),
      arrival_date  date        not null,
      trace_id      text        not null,
      failure_code  text,
      created_at    timestamptz not null,
      updated_at    timestamptz not null,
      primary key (location_id, id),
      unique (location_id, batch_id)
    )`);
  await knex.raw("create index payouts_moving on payouts (location_id, arrival_date) where status in ('PENDING', 'IN_TRANSIT')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table payouts');
  await knex.raw('drop table ledger_batches');
  await knex.raw('drop table ledger_lines');
  await knex.raw('drop table location_settings');
}
