import type { ErrorRequestHandler, Request, Response } from 'express';
import { classifyDatabaseError } from '../db/database-errors';
import { DomainError, type ErrorDetails } from '../errors/domain-error';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-catalog';
import { toErrorMessage } from '../errors/to-error-message';
import { JSON_TOO_DEEP_TYPE } from './json-body';
import type { Logger } from '../logger';

/** body-parser reports its failures with a `type`; each is the caller's fault. */
const BODY_PARSER_ERRORS: Record<string, ErrorCode> = {
  'entity.parse.failed': 'MALFORMED_JSON',
  'entity.too.large': 'PAYLOAD_TOO_LARGE',
  [JSON_TOO_DEEP_TYPE]: 'JSON_TOO_DEEP',
  'charset.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
  'encoding.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
  'request.aborted': 'VALIDATION_FAILED',
  'request.size.invalid': 'VALIDATION_FAILED',
};

/** Express's router could not percent-decode a path parameter (e.g. `%ED%A0%80`, a lone surrogate). */
function isPathDecodingError(error: unknown): boolean {
  return error instanceof URIError;
}

function bodyParserErrorCode(error: unknown): ErrorCode | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? BODY_PARSER_ERRORS[type] : undefined;
}

/** What every 503 asks the caller to wait before asking again. */
export const RETRY_AFTER_SECONDS = 1;

/** Sends a catalogued condition as the spec's ErrorMessage, with the headers it calls for. */
export function sendErrorMessage(request: Request, response: Response, errorCode: ErrorCode, details: ErrorDetails = {}): void {
  const body = toErrorMessage(errorCode, request.requestId, details);
  if (ERROR_CATALOG[errorCode].status === 503) response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  for (const [name, value] of Object.entries(details.headers ?? {})) response.setHeader(name, value);
  response.status(body.status).json(body);
}

/**
 * Turns every error into the spec's ErrorMessage. Known conditions keep their
 * catalogued status; anything else is a bare 500 whose cause goes to the log
 * only, never to the caller. Log lines carry the request's id.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, request, response, next) => {
    // Made here, for the few requests that log more than their access line.
    const log = (): Logger => logger.child({ requestId: request.requestId });
    // The deadline answered already; what the handler did after it is dropped.
    if (request.pastDeadline === true) return;
    // Once an answer has started there is no ErrorMessage to give; Express ends the socket.
    if (response.headersSent) {
      next(error);
      return;
    }
    let errorCode: ErrorCode;
    let details: ErrorDetails = {};
    if (error instanceof DomainError) {
      errorCode = error.errorCode;
      details = error.details;
    } else if (isPathDecodingError(error)) {
      errorCode = 'VALIDATION_FAILED';
      details = { message: 'A path segment is not valid percent-encoded UTF-8.' };
      log().warn({ errorCode }, 'request refused');
    } else {
      errorCode = bodyParserErrorCode(error) ?? classifyDatabaseError(error) ?? 'INTERNAL_ERROR';
      if (errorCode === 'INTERNAL_ERROR' || errorCode === 'SERVICE_UNAVAILABLE') {
        log().error({ err: error, errorCode }, 'request failed');
      } else {
        // A caller's mistake: the error object is not logged, since body-parser's
        // carries the raw body, which may hold a client secret.
        log().warn({ errorCode }, 'request refused');
      }
    }
    sendErrorMessage(request, response, errorCode, details);
  };
}
