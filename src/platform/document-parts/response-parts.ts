import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-catalog';
import { errorMessageSchema } from '../errors/error-message.schemas';

/*
 * Pieces of the OpenAPI document that any route can use: JSON answers and
 * the ErrorMessage answers of catalogued conditions. What is particular to
 * the /v1 operations (scopes, the location, idempotency and session-secret
 * headers) is in src/api/operation-parts.ts.
 */

/** What every answer of the service carries. */
export const ANSWER_HEADERS = z.object({
  'X-Request-Id': z.string().meta({
    description:
      "The request's id: the caller's X-Request-Id when it is safe to echo (1 to 128 of [A-Za-z0-9._-], nothing secret-looking), else one the service made. Every log line of the request carries it; quote it to support.",
    example: '7c1f4b52-2d4e-4f0a-9a51-0f3c2b1d5e6a',
  }),
});

/** An answer without a body (204), with the headers every answer carries. */
export function emptyResponse(description: string): ZodOpenApiResponseObject {
  return { description, headers: ANSWER_HEADERS };
}

/** A JSON answer with its schema, and the headers every answer carries. */
export function jsonResponse(description: string, schema: z.ZodType): ZodOpenApiResponseObject {
  return { description, headers: ANSWER_HEADERS, content: { 'application/json': { schema } } };
}

/** One catalog entry as a line of a response's description. */
function catalogLine(errorCode: ErrorCode): string {
  const entry = ERROR_CATALOG[errorCode];
  return `- \`${entry.code}\` ${errorCode}: ${entry.message}`;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is malformed or has invalid fields; nothing was changed.',
  401: 'The caller is not authenticated.',
  403: 'The caller is authenticated but may not do this.',
  404: 'The record does not exist for this location.',
  405: 'The path exists but does not take this method; `Allow` lists the methods it takes.',
  409: 'The request conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The request body is not JSON.',
  422: 'The request is well formed but cannot be processed as sent.',
  429: 'Too many requests.',
  500: 'Internal server error. The body never carries internal detail; quote requestId to support.',
  503: 'A dependency is unavailable; retry with backoff.',
};

const retryAfter = z.string().regex(/^\d+$/).meta({ description: 'Seconds to wait before retrying.' });

/** Headers the error answers of a status carry, besides ANSWER_HEADERS. */
const HEADERS_BY_STATUS: Partial<Record<number, z.ZodObject>> = {
  409: z.object({ 'Retry-After': retryAfter.optional() }),
  429: z.object({ 'Retry-After': retryAfter }),
  503: z.object({ 'Retry-After': retryAfter }),
};

/**
 * ErrorMessage answers for the given catalog codes, grouped by HTTP status, each
 * status's description listing the `code` values it can carry.
 */
export function errorResponses(errorCodes: readonly ErrorCode[]): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const errorCode of errorCodes) {
    const { status } = ERROR_CATALOG[errorCode];
    byStatus.set(status, [...(byStatus.get(status) ?? []), errorCode]);
  }
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = [STATUS_TEXT[status] ?? 'Error.', '', ...codes.map(catalogLine)].join('\n');
    const headers = HEADERS_BY_STATUS[status];
    const response = jsonResponse(description, errorMessageSchema);
    responses[`${status}` as `4${string}`] = headers ? { ...response, headers: ANSWER_HEADERS.extend(headers.shape) } : response;
  }
  return responses;
}

/** What any operation behind the bearer token and the location header can answer besides its own errors. */
export const AUTHENTICATED_OPERATION_ERRORS: readonly ErrorCode[] = [
  'LOCATION_HEADER_INVALID',
  'CARD_NUMBER_REJECTED',
  'AUTHENTICATION_REQUIRED',
  'INVALID_TOKEN',
  'INSUFFICIENT_SCOPE',
  'LOCATION_NOT_PERMITTED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'SERVICE_OVERLOADED',
  'IDENTITY_PROVIDER_UNAVAILABLE',
];

/** What an operation with a JSON body can answer about the body itself. */
export const JSON_BODY_ERRORS: readonly ErrorCode[] = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'JSON_TOO_DEEP',
  'BODY_REQUIRED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
];
