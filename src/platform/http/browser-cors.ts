import cors from 'cors';
import type { RequestHandler } from 'express';
import { LOCATION_HEADER } from './location-header';

/**
 * CORS for the browser-side reads only (app.ts mounts it on their paths),
 * from the configured origins only (none by default): a preflight from any
 * other origin gets no CORS headers, so the browser refuses the call. GET
 * only; credentials travel in headers, not cookies. `credentialHeaders` are
 * the headers a page may send besides the token and the location.
 */
export function browserCors(allowedOrigins: readonly string[], credentialHeaders: readonly string[]): RequestHandler {
  return cors({
    origin: [...allowedOrigins],
    methods: ['GET'],
    allowedHeaders: ['Authorization', LOCATION_HEADER, ...credentialHeaders, 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id'],
    maxAge: 600,
  });
}
