import cors from 'cors';
import type { RequestHandler } from 'express';
import { LOCATION_HEADER } from './location-header';

/**
 * CORS for the browser-side operations only (app.ts mounts it on their
 * paths: the reads, and the confirm), from the configured origins only (none
 * by default): a preflight from any other origin gets no CORS headers, so the
 * browser refuses the call. GET and POST (the confirm, with a JSON body);
 * credentials travel in headers, not cookies. `credentialHeaders` are
 * the headers a page may send besides the token and the location.
 */
export function browserCors(allowedOrigins: readonly string[], credentialHeaders: readonly string[]): RequestHandler {
  return cors({
    origin: [...allowedOrigins],
    methods: ['GET', 'POST'],
    allowedHeaders: ['Authorization', LOCATION_HEADER, ...credentialHeaders, 'Content-Type', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id'],
    maxAge: 600,
  });
}
