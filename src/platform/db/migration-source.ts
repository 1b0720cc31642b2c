import type { Knex } from 'knex';
import * as customersPaymentMethodsDefaults from '../../../migrations/20261122000000_customers_payment_methods_defaults';
import * as paymentIntents from '../../../migrations/20261122010000_payment_intents';

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
];

export const migrationSource: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
