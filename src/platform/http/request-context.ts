import type { Request } from 'express';

/**
 * Who is asking: what a verified access token says about its bearer. It
 * lives here, with the rest of a request's context, so that every layer can
 * read it without importing the layer that verifies tokens.
 */
export interface AccessTokenClaims {
  /**
   * Who vouches for the client (`iss`). A caller is its issuer and its client
   * id together: state kept per caller (idempotency keys, rate limits) is keyed by both.
   */
  issuer: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** Location ids the bearer may act for; "*" for all. */
  locations: readonly string[];
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the request-id middleware, first in the chain. */
      requestId: string;
      /** The Platform-Restaurant-External-ID header, once validated. */
      locationId?: string;
      /** The verified bearer token's claims, set by the authentication middleware. */
      auth?: AccessTokenClaims;
      /**
       * The route template for logs and metrics, where Express's own would be
       * wrong or missing: set by a /v1 operation as it starts (Express forgets
       * the /v1 mount once an error leaves its router), or by labelErrorRoutes.
       */
      routeTemplate?: string;
      /** The client id a refused login tried, as the log may show it (login.service.ts withholds secret-shaped ones). */
      attemptedClientId?: string;
    }
  }
}

/** The validated location of a /v1 request; the location middleware runs before every /v1 router. */
export function locationOf(request: Request): string {
  if (request.locationId === undefined) {
    throw new Error('locationOf() called on a route mounted without the location middleware');
  }
  return request.locationId;
}

/** The verified claims of a route behind the authentication middleware. */
export function authOf(request: Request): AccessTokenClaims {
  if (request.auth === undefined) throw new Error('authOf() called on a route mounted without authenticate()');
  return request.auth;
}
