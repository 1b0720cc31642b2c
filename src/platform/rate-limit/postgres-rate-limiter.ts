import type { Knex } from 'knex';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { knexAsPgPool } from '../db/pg-pool-adapter';

/** The table the migration creates in rate-limiter-flexible's own layout. */
const TABLE = 'rate_limits';

/**
 * A limiter whose counters live in PostgreSQL, so every replica counts against
 * the same budget. `keyPrefix` keeps limiters that share the table apart.
 */
export function postgresRateLimiter(db: Knex, options: { keyPrefix: string; points: number; durationSeconds: number }): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: knexAsPgPool(db),
    storeType: 'pool',
    tableName: TABLE,
    tableCreated: true,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
  });
}
