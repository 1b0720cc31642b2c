import { describeQueryPlans } from '../../support/query-plans';

/**
 * The query plans at a small size, on PGlite (or DATABASE_URL's server):
 * 3,000 customers over 20 locations (150 a location, so a scan of a whole
 * location would show) and 20,000 events in one. QUERY_PLANS_CUSTOMERS and
 * QUERY_PLANS_EVENTS set other sizes; test/system/database/ checks the size a
 * year brings on the PostgreSQL server.
 */
describeQueryPlans({
  customers: Number(process.env.QUERY_PLANS_CUSTOMERS ?? 3_000),
  eventsInOneLocation: Number(process.env.QUERY_PLANS_EVENTS ?? 20_000),
});
