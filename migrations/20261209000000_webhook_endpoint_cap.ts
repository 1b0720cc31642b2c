import type { Knex } from 'knex';

/**
 * A location's webhook endpoint cap checked in the create's own statement
 * (issue 58): `webhook_endpoints_below(location, cap)` takes the location's
 * transaction-scoped advisory lock, then counts its endpoints. Being
 * VOLATILE, the function reads with a snapshot taken after the lock
 * (PostgreSQL, "Function Volatility Categories"), so the count includes
 * every endpoint a create that held the lock before committed; the insert
 * that calls it commits before the lock is released. One round trip instead
 * of BEGIN, the lock, the insert and COMMIT.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function webhook_endpoints_below(location text, cap integer) returns boolean
      language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || location, 0));
      return (select count(*) from webhook_endpoints where location_id = location) < cap;
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function webhook_endpoints_below(text, integer)');
}
