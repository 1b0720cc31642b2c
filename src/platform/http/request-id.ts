import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Keeps a caller's X-Request-Id when it is safe to echo and log, otherwise makes
 * one, so every answer and log line of a request can be tied together.
 */
export function requestId(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const incoming = request.get('x-request-id');
    const id = incoming !== undefined && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    request.requestId = id;
    // Made on first use: most requests log nothing but their access line,
    // which has its own logger, and a pino child costs a few µs to make.
    let log: Logger | undefined;
    Object.defineProperty(request, 'log', { configurable: true, enumerable: false, get: () => (log ??= logger.child({ requestId: id })) });
    response.setHeader('X-Request-Id', id);
    next();
  };
}
