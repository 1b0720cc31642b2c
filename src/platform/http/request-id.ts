import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Keeps a caller's X-Request-Id when it is safe to echo and log, otherwise makes
 * one, so every answer and log line of a request can be tied together.
 */
export function requestId(): RequestHandler {
  return (request, response, next) => {
    const incoming = request.get('x-request-id');
    const id = incoming !== undefined && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    request.requestId = id;
    response.setHeader('X-Request-Id', id);
    next();
  };
}
