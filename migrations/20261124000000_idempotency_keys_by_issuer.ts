import type { Knex } from 'knex';

/**
 * A caller is its token's issuer and its client id: an external identity
 * provider may name a client as this service names one of its own, and the
 * two must never replay each other's answers. The key now leads with the
 * location, like every other table's, so that the table can be distributed
 * by location unchanged.
 *
 * Keys stored before this migration were made by tokens whose issuer was not
 * recorded. They are given this service's own issuer (TOKEN_ISSUER, read here
 * because it names the tokens that made them on every deployment that has no
 * external provider); they expire within IDEMPOTENCY_KEY_TTL_SECONDS anyway.
 */
const DEFAULT_TOKEN_ISSUER = 'urn:customer-payment-profiles';

export async function up(knex: Knex): Promise<void> {
  const issuer = process.env.TOKEN_ISSUER || DEFAULT_TOKEN_ISSUER;
  await knex.raw('alter table idempotency_keys add column issuer text');
  await knex.raw('update idempotency_keys set issuer = ?', [issuer]);
  await knex.raw('alter table idempotency_keys alter column issuer set not null');
  await knex.raw('alter table idempotency_keys drop constraint idempotency_keys_pkey');
  await knex.raw('alter table idempotency_keys add primary key (location_id, issuer, client_id, key)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table idempotency_keys drop constraint idempotency_keys_pkey');
  // Keys of two issuers under one client id would collide in the old key: keep this service's own.
  await knex.raw('delete from idempotency_keys where issuer <> ?', [process.env.TOKEN_ISSUER || DEFAULT_TOKEN_ISSUER]);
  await knex.raw('alter table idempotency_keys drop column issuer');
  await knex.raw('alter table idempotency_keys add primary key (client_id, location_id, key)');
}
