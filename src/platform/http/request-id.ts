import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { containsCardNumber } from '../validation/card-number';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A payment intent's session secret is `PI_<id>_SECRET_<random>`: anything of that look is treated as one. */
const SESSION_SECRET_LOOK = /PI_.*_SECRET_/i;
/** A JSON Web Token starts with a base64url JSON header (`eyJ`) followed by a dot. */
const JWT_LOOK = /eyJ[A-Za-z0-9_-]*\./;
/** Shorter runs of a token are too common to mean anything. */
const SHORTEST_TOKEN_PART = 16;

/**
 * Whether a caller's request id could be a secret: a card number, a session
 * secret, a JSON Web Token, or part of the request's own bearer token. The id
 * goes into the response header, every log line and every ErrorMessage, so
 * such a value is never kept (nor logged as refused).
 */
function couldBeSecret(id: string, request: Request): boolean {
  if (containsCardNumber(id) || SESSION_SECRET_LOOK.test(id) || JWT_LOOK.test(id)) return true;
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
