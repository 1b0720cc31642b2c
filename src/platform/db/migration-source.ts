import type { Knex } from 'knex';
import * as customersPaymentMethodsDefaults from '../../../migrations/20261122000000_customers_payment_methods_defaults';
import * as paymentIntents from '../../../migrations/20261122010000_payment_intents';
import * as rateLimitsAndIdempotencyKeys from '../../../migrations/20261123000000_rate_limits_and_idempotency_keys';
import * as idempotencyKeysByIssuer from '../../../migrations/20261124000000_idempotency_keys_by_issuer';
import * as identifiersInNfc from '../../../migrations/20261124010000_identifiers_in_nfc';
import * as oneCustomerPerReference from '../../../migrations/20261125000000_one_customer_per_reference';
import * as eventsAndWebhooks from '../../../migrations/20261126000000_events_and_webhooks';
import * as erasureLookups from '../../../migrations/20261127000000_erasure_lookups';
import * as erasedCustomers from '../../../migrations/20261127010000_erased_customers';
import * as deliveriesFollowEvents from '../../../migrations/20261127020000_deliveries_follow_events';
import * as paymentLifecycle from '../../../migrations/20261128000000_payment_lifecycle';
import * as formerIntentCustomers from '../../../migrations/20261129000000_former_intent_customers';
import * as refunds from '../../../migrations/20261130000000_refunds';
import * as cardsLastUsed from '../../../migrations/20261130010000_cards_last_used';
import * as overcapture from '../../../migrations/20261130020000_overcapture';
import * as partialAuthorization from '../../../migrations/20261130030000_partial_authorization';
import * as cardsOnFile from '../../../migrations/20261201000000_cards_on_file';
import * as intentExpiry from '../../../migrations/20261201010000_intent_expiry';
import * as sandboxClocks from '../../../migrations/20261201020000_sandbox_clocks';
import * as claimsPerEndpoint from '../../../migrations/20261202000000_claims_per_endpoint';
import * as listsAtSize from '../../../migrations/20261202010000_lists_at_size';
import * as customerHistoryById from '../../../migrations/20261203000000_customer_history_by_id';
import * as secretKeysInUse from '../../../migrations/20261204000000_secret_keys_in_use';
import * as defaultReplacedCard from '../../../migrations/20261204010000_default_replaced_card';
import * as ledger from '../../../migrations/20261205000000_ledger';
import * as salesDays from '../../../migrations/20261206000000_sales_days';
import * as disputes from '../../../migrations/20261207000000_disputes';
import * as setupIntents from '../../../migrations/20261208000000_setup_intents';
import * as webhookEndpointCap from '../../../migrations/20261209000000_webhook_endpoint_cap';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * The migrations, in order, imported rather than found on disk: the same list
 * then serves `tsx` in development, the compiled build and jest, with names that
 * do not change between `.ts` and `.js`. A new migration is added to this list.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['20261122000000_customers_payment_methods_defaults', customersPaymentMethodsDefaults],
  ['20261122010000_payment_intents', paymentIntents],
  ['20261123000000_rate_limits_and_idempotency_keys', rateLimitsAndIdempotencyKeys],
  ['20261124000000_idempotency_keys_by_issuer', idempotencyKeysByIssuer],
  ['20261124010000_identifiers_in_nfc', identifiersInNfc],
  ['20261125000000_one_customer_per_reference', oneCustomerPerReference],
  ['20261126000000_events_and_webhooks', eventsAndWebhooks],
  ['20261127000000_erasure_lookups', erasureLookups],
  ['20261127010000_erased_customers', erasedCustomers],
  ['20261127020000_deliveries_follow_events', deliveriesFollowEvents],
  ['20261128000000_payment_lifecycle', paymentLifecycle],
  ['20261129000000_former_intent_customers', formerIntentCustomers],
  ['20261130000000_refunds', refunds],
  ['20261130010000_cards_last_used', cardsLastUsed],
  ['20261130020000_overcapture', overcapture],
  ['20261130030000_partial_authorization', partialAuthorization],
  ['20261201000000_cards_on_file', cardsOnFile],
  ['20261201010000_intent_expiry', intentExpiry],
  ['20261201020000_sandbox_clocks', sandboxClocks],
  ['20261202000000_claims_per_endpoint', claimsPerEndpoint],
  ['20261202010000_lists_at_size', listsAtSize],
  ['20261203000000_customer_history_by_id', customerHistoryById],
  ['20261204000000_secret_keys_in_use', secretKeysInUse],
  ['20261204010000_default_replaced_card', defaultReplacedCard],
  ['20261205000000_ledger', ledger],
  ['20261206000000_sales_days', salesDays],
  ['20261207000000_disputes', disputes],
  ['20261208000000_setup_intents', setupIntents],
  ['20261209000000_webhook_endpoint_cap', webhookEndpointCap],
];

export const migrationSource: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

async function latest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** Any fixed number: it names the "migrating" advisory lock of this service's databases. */
const MIGRATION_LOCK_KEY = 7_162_023_011;

interface RawPgConnection {
  query(sql: string, values?: unknown[]): Promise<unknown>;
}
interface KnexClientInternals {
  config: { client?: unknown; connection?: unknown };
  acquireRawConnection(): Promise<RawPgConnection>;
  destroyRawConnection(connection: RawPgConnection): Promise<void>;
}

/**
 * Applies every pending migration. On a PostgreSQL server several replicas may
 * start at once: Knex's own lock does not cover creating its bookkeeping tables
 * (two first starts collide there) and answers a held lock with an error rather
 * than a wait, so the whole run is serialized by a session advisory lock held
 * on a connection of its own. The later replicas then find nothing to do.
 */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const client = knex.client as unknown as KnexClientInternals;
  if (client.config.client !== 'pg') {
    // An embedded database's first start makes its data folder, which takes seconds on a loaded machine: waited for
    // here, not in the pool's acquire, whose DB_ACQUIRE_TIMEOUT_MS (3 s) is a request's wait (a first start failed on it).
    await (client.config.connection as { pglite?: { waitReady: Promise<void> } }).pglite?.waitReady;
    return latest(knex);
  }
  // With several hosts (database.ts) the settings are the primary's once a pooled connection found it: a first query finds it.
  if (typeof client.config.connection === 'function') await knex.raw('select 1');
  const lockConnection = await client.acquireRawConnection();
  try {
    // Waiting for another replica's migration may take longer than a statement may.
    await lockConnection.query('set statement_timeout = 0');
    await lockConnection.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await latest(knex);
    } finally {
      await lockConnection.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.destroyRawConnection(lockConnection);
  }
}
