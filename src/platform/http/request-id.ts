import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { looksLikeSecret } from '../validation/secret-look';

/** A caller's X-Request-Id is kept when it is this (and nothing secret-looking); the document's header says the same. */
export const REQUEST_ID_MAX_LENGTH = 128;
export const ACCEPTED_REQUEST_ID = new RegExp(`^[A-Za-z0-9._-]{1,${REQUEST_ID_MAX_LENGTH}}$`);

/** Shorter runs of a token are too common to mean anything. */
const SHORTEST_TOKEN_PART = 16;

/**
 * Whether a caller's request id could be a secret: a card number, a session
 * secret, a JSON Web Token, a client secret, or part of the request's own bearer token. The id
 * goes into the response header, every log line and every ErrorMessage, so
 * such a value is never kept (nor logged as refused).
 */
function couldBeSecret(id: string, request: Request): boolean {
  if (looksLikeSecret(id)) return true;
  const authorization = request.headers.authorization;
  return id.length >= SHORTEST_TOKEN_PART && authorization !== undefined && authorization.includes(id);
}

/**
 * Keeps a caller's X-Request-Id when it is safe to echo and log, otherwise makes
 * one, so every answer and log line of a request can be tied together.
 */
export function requestId(): RequestHandler {
  return (request, response, next) => {
    const incoming = request.get('x-request-id');
    const id = incoming !== undefined && ACCEPTED_REQUEST_ID.test(incoming) && !couldBeSecret(incoming, request) ? incoming : randomUUID();
    request.requestId = id;
    response.setHeader('X-Request-Id', id);
    next();
  };
}
