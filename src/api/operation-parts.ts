import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import type { Scope } from '../auth/scopes';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency-key';
import { SESSION_SECRET_HEADER, SESSION_SECRET_MAX_LENGTH, SESSION_SECRET_PATTERN } from '../auth/session-grant';
import type { ErrorCode } from '../platform/errors/error-catalog';
import { LOCATION_HEADER } from '../platform/http/location-header';
import { ANSWER_HEADERS, jsonResponse } from '../platform/document-parts/response-parts';

/*
 * The document's pieces of a /v1 operation: its security (scopes), the
 * headers it takes (location, Idempotency-Key, session secret) and the
 * replayed answer of a creating POST. Above auth/ and idempotency/, below the
 * features, so that platform/ needs none of them.
 */

/** The names under which the document declares its two security schemes. */
export const OAUTH2_SCHEME = 'OAuth2';
export const BEARER_SCHEME = 'BearerToken';

/**
 * The operation needs one of these scopes. Both schemes carry them: OAuth2 for
 * clients that log in from the docs page, the bare bearer token for a token
 * pasted in.
 */
export function securedBy(...scopes: Scope[]): Array<Record<string, string[]>> {
  return scopes.flatMap((scope): Array<Record<string, string[]>> => [{ [OAUTH2_SCHEME]: [scope] }, { [BEARER_SCHEME]: [scope] }]);
}

export const locationHeaderSchema = z
  .string()
  .min(1)
  .max(255)
  // No control characters, as the location middleware checks (its Unicode rules are in the description).
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  .regex(/^[^\u0000-\u001f\u007f]+$/)
  .meta({
    description:
      'The identifier of the location (restaurant) the request acts for. Every record belongs to the location it was made under; records of other locations are invisible (404). Send it once, as UTF-8 in Unicode NFC without format characters (Unicode category Cf): it is matched exactly, so a value that could be written two ways is refused (400).',
    example: 'a3f1c7e2-6a41-4c8e-9d1e-2f0c6b7d8e90',
    param: { id: 'PlatformRestaurantExternalId' },
  });

/** The headers every /v1 operation takes. */
export const locationHeaders = z.object({ [LOCATION_HEADER]: locationHeaderSchema });

/** The headers of a creating POST: the location, and an optional Idempotency-Key. */
export const creatingOperationHeaders = locationHeaders.extend({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .max(255)
    .optional()
    .meta({
      description:
        "Makes a retry safe (IETF draft-ietf-httpapi-idempotency-key-header, as Stripe). 1 to 255 visible ASCII characters; a new UUID per logical request is best. Kept per client and location for 24 hours (IDEMPOTENCY_KEY_TTL_SECONDS). A retry with the same key, method, path and body answers the first attempt's status and body with `Idempotent-Replayed: true` and creates nothing. The same key with a different request is 422 (`IDEMPOTENCY_KEY_REUSED`); while the first attempt is still running, 409 (`IDEMPOTENCY_REQUEST_IN_PROGRESS`) with `Retry-After`. What is stored: 2xx answers and 404s. A 400, 409 or 5xx stores nothing, so a corrected retry runs afresh; a record and the answer stored for its key commit together or not at all. (No example is given: the docs page would send that one key with every try.)",
      param: { id: 'IdempotencyKey' },
    }),
});

/** A creating operation's success answer, which a retry with the same Idempotency-Key replays. */
export function createdResponse(description: string, schema: z.ZodType): ZodOpenApiResponseObject {
  return {
    ...jsonResponse(description, schema),
    headers: ANSWER_HEADERS.extend({
      [IDEMPOTENT_REPLAYED_HEADER]: z
        .literal('true')
        .optional()
        .meta({
          description: 'Present when this is the stored answer of an earlier attempt with the same Idempotency-Key.',
          header: { id: IDEMPOTENT_REPLAYED_HEADER },
        }),
    }),
  };
}

/**
 * The IETF RateLimit header fields (draft 8), on every /v1 answer once the
 * caller's budget for the location is counted: absent from an answer refused
 * before that (401 token, 400 location, 403 location), and when the limit is off.
 */
export const RATE_LIMIT_HEADERS = z.object({
  RateLimit: z
    .string()
    .optional()
    .meta({
      description: 'What is left of the policy: `"client-location";r=<remaining>;t=<seconds to reset>`.',
      example: '"client-location";r=1187;t=42',
      header: { id: 'RateLimit' },
    }),
  'RateLimit-Policy': z
    .string()
    .optional()
    .meta({
      description: 'The policy: `"client-location";q=<requests>;w=<window seconds>` (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS).',
      example: '"client-location";q=1200;w=60',
      header: { id: 'RateLimit-Policy' },
    }),
});

/**
 * The browser-side operations (the reads, and the confirm): a token with only simplified-payments-integration:read
 * must bring a live session secret; a token with the operation's full scope may.
 */
export const locationAndSessionSecretHeaders = locationHeaders.extend({
  [SESSION_SECRET_HEADER]: z
    .string()
    .max(SESSION_SECRET_MAX_LENGTH)
    .regex(SESSION_SECRET_PATTERN)
    .optional()
    .meta({
      description:
        'The `sessionSecret` of a payment intent of this location (`PI_<intent id>_SECRET_<random>`). Required when the token holds only `simplified-payments-integration:read`; optional with the full read scope, but a secret that is sent must be valid either way (otherwise 401, `SESSION_SECRET_INVALID`). Live while its intent is neither SUCCEEDED nor CANCELED and younger than 24 hours (configurable).',
      param: { id: 'PlatformSessionSecret' },
    }),
});

/** What a creating POST can answer about its Idempotency-Key. */
export const IDEMPOTENT_CREATE_ERRORS: readonly ErrorCode[] = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS'];
