import cors from 'cors';
import type { RequestHandler } from 'express';
import { LOCATION_HEADER } from './location-header';

/** The reads a hosted checkout's browser side makes with a session secret. */
export const BROWSER_READ_PATHS = [
  '/v1/customers/:id/payment-methods',
  '/v1/customers/:id/payment-methods/defaults/:contextName',
  '/v1/payment-intents/:id',
];

/**
 * CORS for the browser-side reads only, from the configured origins only (none
 * by default): a preflight from any other origin gets no CORS headers, so the
 * browser refuses the call. GET only; credentials travel in headers, not cookies.
 */
export function browserCors(allowedOrigins: readonly string[]): RequestHandler {
  return cors({
    origin: [...allowedOrigins],
    methods: ['GET'],
    allowedHeaders: ['Authorization', LOCATION_HEADER, 'Platform-Session-Secret', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id'],
    maxAge: 600,
  });
}
