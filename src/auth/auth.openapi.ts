import { z } from 'zod';
import type { ErrorCode } from '../platform/errors/error-catalog';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { errorMessageSchema } from '../platform/errors/error-message.schemas';
import { ANSWER_HEADERS, errorResponses, jsonResponse } from '../platform/document-parts/response-parts';
import { JWKS_PATH } from './jwks.router';
import { LOGIN_PATH } from './login.router';
import {
  clientCredentialsFormSchema,
  jwksResponseSchema,
  loginRequestSchema,
  loginResponseSchema,
  oauthErrorSchema,
  oauthTokenResponseSchema,
} from './login.schemas';

const TAG = 'Authentication';

/** The JSON login answers ErrorMessage, the RFC 6749 form answers OAuthError. */
/** A login error: an ErrorMessage (the JSON form) or an RFC 6749 OAuthError (the form encoding), with an example of each. */
function loginError(description: string, codes: readonly ErrorCode[], oauthError: { error: string; error_description: string }) {
  const response = jsonResponse(description, z.union([errorMessageSchema, oauthErrorSchema]));
  return {
    ...response,
    content: {
      'application/json': {
        schema: z.union([errorMessageSchema, oauthErrorSchema]),
        examples: {
          ...Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
          [oauthError.error]: { summary: `OAuthError ${oauthError.error}`, value: oauthError },
        },
      },
    },
  };
}

export const authPaths: ZodOpenApiPathsObject = {
  [LOGIN_PATH]: {
    post: {
      operationId: 'login',
      tags: [TAG],
      summary: 'Get an access token (OAuth 2.0 client credentials)',
      description:
        "Two wire formats. JSON (`LoginRequest`, the spec's token call) answers `LoginResponse`, and its errors are ErrorMessage. RFC 6749 §4.4 form encoding (`grant_type=client_credentials`, credentials in the body or HTTP Basic) answers `OAuthTokenResponse`, and its errors are RFC 6749 §5.2 `OAuthError`. Answers carry `Cache-Control: no-store`; there are no refresh tokens. Repeated failed logins for one client id are answered 429 with `Retry-After`.",
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: loginRequestSchema },
          'application/x-www-form-urlencoded': { schema: clientCredentialsFormSchema },
        },
      },
      responses: {
        '200': jsonResponse('An access token (a JWT in the RFC 9068 shape).', z.union([loginResponseSchema, oauthTokenResponseSchema])),
        '400': loginError(
          'The request is malformed (ErrorMessage 1000/1001/1002, 1012 for JSON nested more than 32 levels deep, or OAuthError invalid_request, unsupported_grant_type, invalid_scope).',
          ['VALIDATION_FAILED', 'MALFORMED_JSON', 'BODY_REQUIRED', 'JSON_TOO_DEEP'],
          { error: 'invalid_request', error_description: 'grant_type is required.' },
        ),
        '401': {
          ...loginError(
            'The client id or secret is wrong (ErrorMessage 4003, or OAuthError invalid_client with WWW-Authenticate).',
            ['INVALID_CLIENT_CREDENTIALS'],
            { error: 'invalid_client', error_description: 'Client authentication failed.' },
          ),
          headers: ANSWER_HEADERS.extend({ 'WWW-Authenticate': z.string().optional().meta({ description: 'On the form-encoded grant: `Basic realm=...`.' }) }),
        },
        '429': {
          ...loginError(
            'Too many failed logins for this client id from this address, or from this address across client ids (ErrorMessage 4291, or OAuthError too_many_attempts). Each attempt is counted before its secret is checked.',
            ['TOO_MANY_LOGIN_ATTEMPTS'],
            { error: 'too_many_attempts', error_description: 'Too many failed logins for this client; retry later.' },
          ),
          headers: ANSWER_HEADERS.extend({ 'Retry-After': z.string().meta({ description: 'Seconds to wait before trying again.' }) }),
        },
        ...errorResponses(['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']),
      },
    },
  },
  [JWKS_PATH]: {
    get: {
      operationId: 'getJsonWebKeySet',
      tags: [TAG],
      summary: "The public keys of this service's tokens",
      description: 'By `kid`; the current key first, then keys retired by a rotation that tokens still in flight may carry.',
      security: [],
      responses: { '200': jsonResponse('The key set.', jwksResponseSchema) },
    },
  },
};
