import type { Knex } from 'knex';

/**
 * The change log and the webhooks fed from it.
 *
 * - `events`: one row per change, written in the transaction that makes the
 *   change and never updated; purged after EVENT_RETENTION_DAYS. Keyed by
 *   location first, as every table here.
 * - `event_outbox`: the events not yet fanned out to webhook endpoints,
 *   inserted by the same statement as the event. The dispatcher takes rows
 *   with `for update skip locked` and deletes them as it makes the deliveries,
 *   so each event is fanned out once whatever the number of replicas, and an
 *   event committed late (a long transaction) is never skipped, as a cursor
 *   over ids could skip it.
 * - `webhook_endpoints`, their `webhook_deliveries` (one per event and
 *   endpoint: due time, attempts, outcome) and each `webhook_delivery_attempts` row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table events (
      location_id     text        not null,
      id              uuid        not null,
      type            text        not null,
      created_at      timestamptz not null default now(),
      customer_id     uuid,
      request_id      text,
      idempotency_key text,
      client_id       text,
      data            jsonb       not null,
      primary key (location_id, id)
    )`);
  await knex.raw('create index events_of_customer on events (location_id, customer_id, id) where customer_id is not null');
  await knex.raw('create index events_by_age on events (created_at)');

  await knex.raw(`
    create table event_outbox (
      location_id text        not null,
      event_id    uuid        not null,
      created_at  timestamptz not null default now(),
      primary key (location_id, event_id)
    )`);
  await knex.raw('create index event_outbox_by_age on event_outbox (created_at)');

  await knex.raw(`
    create table webhook_endpoints (
      location_id                 text        not null,
      id                          uuid        not null,
      url                         text        not null,
      description                 text,
      enabled_events              text[]      not null,
      status                      text        not null check (status in ('ENABLED', 'DISABLED')),
      disabled_reason             text,
      secret                      text        not null,
      previous_secret             text,
      previous_secret_expires_at  timestamptz,
      failing_since               timestamptz,
      created_at                  timestamptz not null default now(),
      updated_at                  timestamptz not null default now(),
      primary key (location_id, id)
    )`);

  await knex.raw(`
    create table webhook_deliveries (
      location_id     text        not null,
      id              uuid        not null,
      endpoint_id     uuid        not null,
      event_id        uuid        not null,
      status          text        not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
      attempts        integer     not null default 0,
      next_attempt_at timestamptz not null default now(),
      created_at      timestamptz not null default now(),
      updated_at      timestamptz not null default now(),
      primary key (location_id, id),
      foreign key (location_id, endpoint_id) references webhook_endpoints (location_id, id) on delete cascade
    )`);
  // What the dispatcher looks for: the pending deliveries that are due.
  await knex.raw(`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'PENDING'`);
  await knex.raw('create index webhook_deliveries_of_event on webhook_deliveries (location_id, event_id)');

  await knex.raw(`
    create table webhook_delivery_attempts (
      location_id  text        not null,
      id           uuid        not null,
      delivery_id  uuid        not null,
      endpoint_id  uuid        not null,
      event_id     uuid        not null,
      event_type   text        not null,
      attempt      integer     not null,
      outcome      text        not null check (outcome in ('SUCCEEDED', 'FAILED')),
      status_code  integer,
      duration_ms  integer     not null,
      error        text,
      attempted_at timestamptz not null default now(),
      primary key (location_id, id),
      foreign key (location_id, delivery_id) references webhook_deliveries (location_id, id) on delete cascade
    )`);
  await knex.raw('create index webhook_attempts_of_endpoint on webhook_delivery_attempts (location_id, endpoint_id, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table webhook_delivery_attempts');
  await knex.raw('drop table webhook_deliveries');
  await knex.raw('drop table webhook_endpoints');
  await knex.raw('drop table event_outbox');
  await knex.raw('drop table events');
}
