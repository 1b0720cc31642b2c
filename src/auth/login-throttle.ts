import type { Knex } from 'knex';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { postgresRateLimiter } from '../platform/rate-limit/postgres-rate-limiter';

/**
 * Slows down online guessing of a client's secret: after `maxFailures` failed
 * logins for one client id within `windowSeconds`, that client id's logins are
 * refused (429) until the window ends, whatever secret they carry. The count
 * lives in PostgreSQL, so spreading guesses over replicas gains nothing. When
 * the database cannot be reached, logins fail with 503 rather than go uncounted.
 */
export class LoginThrottle {
  private readonly failures: RateLimiterAbstract;

  constructor(db: Knex, settings: { maxFailures: number; windowSeconds: number }) {
    this.failures = postgresRateLimiter(db, { keyPrefix: 'login', points: settings.maxFailures, durationSeconds: settings.windowSeconds });
  }

  /** Seconds until this client id may try again; 0 when it may now. */
  async retryAfterSeconds(clientId: string): Promise<number> {
    const state = await this.failures.get(clientId);
    return state !== null && state.remainingPoints <= 0 ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : 0;
  }

  async recordFailure(clientId: string): Promise<void> {
    try {
      await this.failures.consume(clientId);
    } catch (error) {
      // Rejected with the limiter's state once the points are spent: that is the point.
      if (!(error instanceof RateLimiterRes)) throw error;
    }
  }

  async recordSuccess(clientId: string): Promise<void> {
    await this.failures.delete(clientId);
  }
}
