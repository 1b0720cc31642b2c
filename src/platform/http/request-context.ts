import type { Request } from 'express';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the request-id middleware, first in the chain. */
      requestId: string;
      /** The Platform-Restaurant-External-ID header, once validated. */
      locationId?: string;
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
