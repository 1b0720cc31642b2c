import { openDatabase } from '../../../src/platform/db/database';
import { migrateToLatest } from '../../../src/platform/db/migration-source';
import { createLogger } from '../../../src/platform/logger';
import { freshPostgresDatabase } from '../../support/process/fresh-postgres-database';
import { describeQueryPlans } from '../../support/query-plans';

/**
 * The query plans at the size a year brings (docs/performance.md, Growth), on
 * the PostgreSQL server in a database of its own: 100,000 customers over 20
 * locations (5,000 a location, with their cards, defaults and intents) and a
 * million events in the one location every call acts for. Each list and
 * filter must still read a page, whatever the history.
 */
describeQueryPlans({ customers: 100_000, eventsInOneLocation: 1_000_000 }, async () => {
  const database = await freshPostgresDatabase();
  const { knex, kind } = openDatabase({
    databaseUrl: database.url,
    poolMax: 4,
    acquireTimeoutMs: 10_000,
    // The seed's statements insert a million rows at a time.
    statementTimeoutMs: 600_000,
    logger: createLogger({ level: 'silent' }),
  });
  await migrateToLatest(knex);
  return {
    knex,
    kind,
    close: async () => {
      await knex.destroy();
      await database.drop();
    },
  };
});
