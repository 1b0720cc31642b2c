import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { authOf } from '../../auth/authenticate';
import { DomainError } from '../errors/domain-error';
import { locationOf } from '../http/request-context';
import { postgresRateLimiter } from './postgres-rate-limiter';

export interface RateLimitSettings {
  /** Requests one client may make for one location per window; 0 turns the limit off. */
  requests: number;
  windowSeconds: number;
}

const POLICY = 'client-location';

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-08,
 * the form express-rate-limit calls draft-8): the policy, and what is left of
 * it with the seconds until it resets.
 */
function setRateLimitHeaders(response: Response, settings: RateLimitSettings, state: RateLimiterRes): void {
  const resetSeconds = Math.max(0, Math.ceil(state.msBeforeNext / 1000));
  response.setHeader('RateLimit-Policy', `"${POLICY}";q=${settings.requests};w=${settings.windowSeconds}`);
  response.setHeader('RateLimit', `"${POLICY}";r=${state.remainingPoints};t=${resetSeconds}`);
}

/**
 * Limits each client's requests per location over a fixed window, counted in
 * PostgreSQL so that every replica draws on one budget. Mounted after the
 * location entitlement check, so only locations a token may act for are
 * counted. When the count cannot be kept (the database is unreachable), the
 * request fails with the 503 it would get anyway: nothing passes uncounted.
 */
export function apiRateLimit(db: Knex, settings: RateLimitSettings): RequestHandler {
  if (settings.requests === 0) return (_request, _response, next) => next();
  const limiter = postgresRateLimiter(db, { keyPrefix: 'api', points: settings.requests, durationSeconds: settings.windowSeconds });
  return async (request, response, next) => {
    // Hashed: client ids and location ids are each up to 255 characters, the key column too.
    const key = createHash('sha256').update(`${authOf(request).clientId}\n${locationOf(request)}`).digest('base64url');
    let state: RateLimiterRes;
    try {
      state = await limiter.consume(key);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      setRateLimitHeaders(response, settings, error);
      throw new DomainError('RATE_LIMITED', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(error.msBeforeNext / 1000))) } });
    }
    setRateLimitHeaders(response, settings, state);
    next();
  };
}
