import { migratedServerDatabase } from '../../support/process/migrated-server-database';
import { describeQueryPlans } from '../../support/query-plans';

/**
 * The query plans at the size a year brings (docs/performance.md, Growth), on
 * the PostgreSQL server in a database of its own: 100,000 customers over 20
 * locations (5,000 a location, with their cards, defaults and intents) and a
 * million events in the one location every call acts for. Each list and
 * filter must still read a page, whatever the history.
 */
describeQueryPlans({ customers: 100_000, eventsInOneLocation: 1_000_000 }, () =>
  // The seed's statements insert a million rows at a time.
  migratedServerDatabase({ poolMax: 4, statementTimeoutMs: 600_000 }),
);
