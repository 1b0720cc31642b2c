import type { Knex } from 'knex';

/**
 * State every replica must share, so it lives here and not in a process:
 *
 * - rate_limits: rate-limiter-flexible's PostgreSQL table (its own column
 *   layout), one row per counted key such as `login:<client>` or
 *   `api:<client>:<location>`; `expire` is epoch milliseconds.
 * - idempotency_keys: what a creating POST with an Idempotency-Key answered,
 *   per client and location, replayed to a retry until `expires_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table rate_limits (
      key    varchar(255) primary key,
      points integer      not null default 0,
      expire bigint
    )`);
  await knex.raw(`
    create table idempotency_keys (
      client_id       text        not null,
      location_id     text        not null,
      key             text        not null check (key ~ '^[!-~]{1,255}$'),
      fingerprint     text        not null,
      claim_token     uuid        not null,
      state           text        not null check (state in ('in_progress', 'completed')),
      response_status integer,
      response_body   jsonb,
      locked_at       timestamptz not null default now(),
      expires_at      timestamptz not null,
      primary key (client_id, location_id, key),
      check ((state = 'completed') = (response_status is not null))
    )`);
  await knex.raw('create index idempotency_keys_by_expiry on idempotency_keys (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table idempotency_keys');
  await knex.raw('drop table rate_limits');
}
