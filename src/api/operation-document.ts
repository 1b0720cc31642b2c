import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import type { ErrorCode } from '../platform/errors/error-catalog';
import {
  AUTHENTICATED_OPERATION_ERRORS,
  emptyResponse,
  errorResponses,
  fileResponse,
  JSON_BODY_ERRORS,
  jsonResponse,
} from '../platform/document-parts/response-parts';
import { scopesOf } from './access';
import type { Operation } from './operation';
import {
  createdResponse,
  creatingOperationHeaders,
  IDEMPOTENT_CREATE_ERRORS,
  locationAndSessionSecretHeaders,
  locationHeaders,
  RATE_LIMIT_HEADERS,
  securedBy,
} from './operation-parts';

/**
 * Everything the operation can answer besides success, in the order the
 * document lists them: what its input can get wrong, its session secret, its
 * own failures, its Idempotency-Key, then what every /v1 operation can answer.
 */
function errorsOf(operation: Operation<never>): ErrorCode[] {
  const input: ErrorCode[] = operation.body !== undefined ? [...JSON_BODY_ERRORS] : operation.params || operation.query ? ['VALIDATION_FAILED'] : [];
  return [
    ...new Set<ErrorCode>([
      ...input,
      ...(operation.access.sessionSecret === undefined ? [] : (['SESSION_SECRET_INVALID'] as const)),
      ...operation.errors,
      ...(operation.idempotent ? IDEMPOTENT_CREATE_ERRORS : []),
      ...AUTHENTICATED_OPERATION_ERRORS,
    ]),
  ];
}

/** Every answer of a /v1 operation can carry the RateLimit header fields. */
function withRateLimitHeaders(response: ZodOpenApiResponseObject): ZodOpenApiResponseObject {
  const headers = response.headers as z.ZodObject | undefined;
  return { ...response, headers: headers === undefined ? RATE_LIMIT_HEADERS : headers.extend(RATE_LIMIT_HEADERS.shape) };
}

/** An answer that carries a validator: when, in the declaration's words, and that If-None-Match answers 304. */
function withEtag(response: ZodOpenApiResponseObject, when: string | undefined): ZodOpenApiResponseObject {
  if (when === undefined) return response;
  const etag = z
    .string()
    .optional()
    .meta({ description: `${when} Sent back as If-None-Match, it is answered 304 without a body.`, example: '"3f9a…"' });
  return { ...response, headers: (response.headers as z.ZodObject).extend({ ETag: etag }) };
}

/** The 304 of every operation whose answer carries a validator: one answer in the document's components, written once. */
const NOT_MODIFIED: ZodOpenApiResponseObject = {
  id: 'NotModified',
  ...withRateLimitHeaders(emptyResponse('Not Modified: the If-None-Match header holds the ETag of what would be answered.')),
};

function responsesOf(operation: Operation<never>): ZodOpenApiResponsesObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, { description, schema, file, etag }] of Object.entries(operation.responses)) {
    const response =
      file !== undefined
        ? fileResponse(description, file)
        : schema === undefined
          ? emptyResponse(description)
          : operation.idempotent
            ? createdResponse(description, schema)
            : jsonResponse(description, schema);
    responses[status] = withEtag(response, etag);
  }
  const successes = Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, withRateLimitHeaders(response)]));
  const validated = Object.values(operation.responses).some(({ etag }) => etag !== undefined);
  return { ...successes, ...(validated ? { 304: NOT_MODIFIED } : {}), ...errorResponses(errorsOf(operation), RATE_LIMIT_HEADERS) } as ZodOpenApiResponsesObject;
}

function headersOf(operation: Operation<never>) {
  if (operation.idempotent) return creatingOperationHeaders;
  return operation.access.sessionSecret === undefined ? locationHeaders : locationAndSessionSecretHeaders;
}

function documentOf(operation: Operation<never>): ZodOpenApiOperationObject {
  const { body } = operation;
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.description,
    security: securedBy(...scopesOf(operation.access)),
    requestParams: {
      header: headersOf(operation),
      ...(operation.params ? { path: operation.params } : {}),
      ...(operation.query ? { query: operation.query } : {}),
    },
    ...(body
      ? {
          requestBody: {
            required: !body.optional,
            content: { [body.anyContentType ? '*/*' : 'application/json']: { schema: body.schema } },
          },
        }
      : {}),
    responses: responsesOf(operation),
  };
}

/** The document's paths of every /v1 operation, rendered from their declarations. */
export function operationPaths(operations: readonly Operation<never>[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of operations) {
    paths[operation.path] = { ...paths[operation.path], [operation.method]: documentOf(operation) };
  }
  return paths;
}
