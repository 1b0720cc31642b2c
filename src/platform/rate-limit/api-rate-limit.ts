import { hash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { DomainError } from '../errors/domain-error';
import { authOf, locationOf } from '../http/request-context';
import { leaseSizeFor, PointLeases, type Draw } from './point-leases';
import { postgresPointStore } from './postgres-point-store';

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
function setRateLimitHeaders(response: Response, settings: RateLimitSettings, draw: Draw): void {
  const resetSeconds = Math.max(0, Math.ceil(draw.msBeforeReset / 1000));
  response.setHeader('RateLimit-Policy', `"${POLICY}";q=${settings.requests};w=${settings.windowSeconds}`);
  response.setHeader('RateLimit', `"${POLICY}";r=${draw.remaining};t=${resetSeconds}`);
}

/**
 * Limits each caller's (issuer and client id) requests per location over a fixed window, counted in
 * PostgreSQL so that every replica draws on one budget. Mounted after the
 * location entitlement check, so only locations a token may act for are
 * counted. Points are taken from PostgreSQL in leases (point-leases.ts), so
 * most requests cost no round trip. When the count cannot be kept (the
 * database is unreachable), the request fails with the 503 it would get
 * anyway: nothing passes uncounted.
 */
export function apiRateLimit(db: Knex, settings: RateLimitSettings): RequestHandler {
  if (settings.requests === 0) return (_request, _response, next) => next();
  const store = postgresPointStore(db, { keyPrefix: 'api', budget: settings.requests, windowSeconds: settings.windowSeconds });
  // Hashed for the store: client ids and location ids are each up to 255 characters, the key column too.
  const storeKeyOf = (key: string): string => hash('sha256', key, 'base64url');
  const leases = new PointLeases(store, leaseSizeFor(settings.requests), Date.now, storeKeyOf);
  return async (request, response, next) => {
    const { issuer, clientId } = authOf(request);
    const draw = await leases.draw(`${issuer}\n${clientId}\n${locationOf(request)}`);
    setRateLimitHeaders(response, settings, draw);
    if (!draw.allowed) {
      throw new DomainError('RATE_LIMITED', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(draw.msBeforeReset / 1000))) } });
    }
    next();
  };
}
