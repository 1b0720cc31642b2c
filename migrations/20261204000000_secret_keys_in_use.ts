import type { Knex } from 'knex';

/**
 * The keys of the secrets keyring that secrets in this database are, or may
 * be, sealed under (src/platform/secrets/keys-in-use.ts): a process whose
 * keyring lacks one refuses to start, where it would have answered 500 on
 * every read of what that key sealed. `key_check` tells two keys of one id
 * apart without revealing either (an HMAC of a fixed text under the key);
 * `source` says which keyring file registered it, so the refusal can name
 * the fix. Keys found sealed in rows from before this table have no check.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table secret_keys_in_use (
      key_id text primary key,
      key_check text,
      source text not null,
      registered_at timestamptz not null default now()
    )`);
  await knex.raw(`
    insert into secret_keys_in_use (key_id, source)
    select distinct split_part(sealed, ':', 2), 'found sealed in the database when this table was made'
    from (
      select session_secret as sealed from payment_intents where session_secret like 'enc1:%'
      union all select secret from webhook_endpoints where secret like 'enc1:%'
      union all select previous_secret from webhook_endpoints where previous_secret like 'enc1:%'
    ) as sealed_values`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table secret_keys_in_use');
}
