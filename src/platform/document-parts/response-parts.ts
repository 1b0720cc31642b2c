import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-catalog';
import { ERROR_DOCS_PATH } from '../errors/error-docs';
import { errorMessageSchema } from '../errors/error-message.schemas';
import { ACCEPTED_REQUEST_ID, REQUEST_ID_MAX_LENGTH } from '../http/request-id';

/*
 * Pieces of the OpenAPI document that any route can use: JSON answers and
 * the ErrorMessage answers of catalogued conditions. What is particular to
 * the /v1 operations (scopes, the location, idempotency and session-secret
 * headers) is in src/api/operation-parts.ts.
 */

/**
 * What every answer of the service carries. Each header the document repeats
 * is declared once, as a component (`header.id`), and referred to.
 */
export const ANSWER_HEADERS = z.object({
  'X-Request-Id': z
    .string()
    .min(1)
    .max(REQUEST_ID_MAX_LENGTH)
    .regex(ACCEPTED_REQUEST_ID)
    .meta({
      description: `The request's id: the caller's X-Request-Id when it is safe to echo (1 to ${REQUEST_ID_MAX_LENGTH} of [A-Za-z0-9._-], nothing secret-looking), else one the service made (a UUID): a longer or other one is replaced, never refused. Every log line of the request carries it; quote it to support.`,
      example: '7c1f4b52-2d4e-4f0a-9a51-0f3c2b1d5e6a',
      header: { id: 'X-Request-Id' },
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

/** A file answer (a CSV report): its text, with the headers every answer carries and the one that names the file. */
export function fileResponse(description: string, file: { mediaType: string; example: string }): ZodOpenApiResponseObject {
  return {
    description,
    headers: ANSWER_HEADERS.extend({
      'Content-Disposition': z
        .string()
        .meta({ description: 'attachment, with the file name a browser saves it under.', example: 'attachment; filename="batch-2026-11-27-USD.csv"' }),
    }),
    content: { [file.mediaType]: { schema: z.string().meta({ description: `UTF-8 ${file.mediaType}.` }), example: file.example } },
  };
}

/** One catalog entry as a line of a response's description. */
function catalogLine(errorCode: ErrorCode): string {
  // The entry's meaning is written once, in its example (components.examples); an answer names it.
  return `- \`${ERROR_CATALOG[errorCode].code}\` ${errorCode}`;
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

const retryAfter = z.string().regex(/^\d+$/);
const RETRY_AFTER = 'Seconds to wait before retrying.';

/** Headers the error answers of a status carry, besides ANSWER_HEADERS. */
const HEADERS_BY_STATUS: Partial<Record<number, z.ZodObject>> = {
  409: z.object({
    'Retry-After': retryAfter
      .optional()
      .meta({ description: `${RETRY_AFTER} Only while an earlier attempt with the same Idempotency-Key runs.`, header: { id: 'Retry-After-Optional' } }),
  }),
  429: z.object({ 'Retry-After': retryAfter.meta({ description: RETRY_AFTER, header: { id: 'Retry-After' } }) }),
  503: z.object({ 'Retry-After': retryAfter.meta({ description: RETRY_AFTER, header: { id: 'Retry-After' } }) }),
};

const EXAMPLE_REQUEST_ID = '7c1f4b52-2d4e-4f0a-9a51-0f3c2b1d5e6a';

/** The ErrorMessage each catalog entry answers, as the document's examples (components.examples, one per entry, referred to by each answer that can carry it). */
export function errorExamples(): Record<ErrorCode, ReturnType<typeof exampleOf>> {
  return Object.fromEntries((Object.keys(ERROR_CATALOG) as ErrorCode[]).map((code) => [code, exampleOf(code)])) as Record<
    ErrorCode,
    ReturnType<typeof exampleOf>
  >;
}

/** The ErrorMessage a catalog entry answers, as the document's example of it. */
function exampleOf(errorCode: ErrorCode) {
  const entry = ERROR_CATALOG[errorCode];
  return {
    summary: `${entry.code} ${errorCode}`,
    value: {
      status: entry.status,
      code: entry.code,
      message: entry.message,
      messageKey: errorCode,
      link: `${ERROR_DOCS_PATH}#${errorCode}`,
      requestId: EXAMPLE_REQUEST_ID,
    },
  };
}

/**
 * ErrorMessage answers for the given catalog codes, grouped by HTTP status:
 * each status's description lists the `code` values it can carry, and its
 * examples are one answer per code. An answer is a component named by its
 * status and codes (operations that can answer the same share it), and
 * `extraHeaders` (the /v1 operations' RateLimit fields) are added to each.
 */
export function errorResponses(errorCodes: readonly ErrorCode[], extraHeaders?: z.ZodObject): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const errorCode of errorCodes) {
    const { status } = ERROR_CATALOG[errorCode];
    byStatus.set(status, [...(byStatus.get(status) ?? []), errorCode]);
  }
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    // Named by the status and the catalog's numbers of its codes (the description lists them by name).
    const id = [`Error${status}`, ...codes.map((code) => ERROR_CATALOG[code].code), ...(extraHeaders === undefined ? ['bare'] : [])].join('-');
    responses[`${status}` as `4${string}`] = sharedErrorResponses.get(id) ?? errorResponse(id, status, codes, extraHeaders);
  }
  return responses;
}

/** Each shared answer is one object: the document registers it once, by its id, and every operation refers to it. */
const sharedErrorResponses = new Map<string, ZodOpenApiResponseObject>();

function errorResponse(id: string, status: number, codes: readonly ErrorCode[], extraHeaders: z.ZodObject | undefined): ZodOpenApiResponseObject {
  const description = [STATUS_TEXT[status] ?? 'Error.', '', ...codes.map(catalogLine)].join('\n');
  const statusHeaders = HEADERS_BY_STATUS[status];
  let headers = statusHeaders === undefined ? ANSWER_HEADERS : ANSWER_HEADERS.extend(statusHeaders.shape);
  if (extraHeaders !== undefined) headers = headers.extend(extraHeaders.shape);
  const response: ZodOpenApiResponseObject = {
    id,
    description,
    headers,
    content: {
      'application/json': { schema: errorMessageSchema, examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])) },
    },
  };
  sharedErrorResponses.set(id, response);
  return response;
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
