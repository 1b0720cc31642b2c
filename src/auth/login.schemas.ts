import { z } from 'zod';
import { TOKEN_TTL_SECONDS_RANGE } from '../platform/config';
import { int32 } from '../platform/validation/int32';

const expiresInSchema = int32(TOKEN_TTL_SECONDS_RANGE.min, TOKEN_TTL_SECONDS_RANGE.max).meta({
  description: 'Seconds until the access token expires (TOKEN_TTL_SECONDS).',
});

/** The spec's token call, as Toast-style integrations send it (JSON). */
export const loginRequestSchema = z
  .object({
    clientId: z.string().min(1).max(128),
    clientSecret: z.string().min(1).max(512),
    userAccessType: z
      .literal('TOAST_MACHINE_CLIENT')
      .optional()
      .meta({ description: 'Accepted for compatibility with Toast-style clients; machine clients are the only kind.' }),
    scope: z.string().max(1024).optional().meta({ description: "Space-separated subset of the client's scopes; all of them when absent." }),
  })
  .meta({ id: 'LoginRequest' });

export const loginResponseSchema = z
  .strictObject({
    token: z.strictObject({
      tokenType: z.literal('Bearer'),
      scope: z.string(),
      expiresIn: expiresInSchema,
      accessToken: z.string(),
      idToken: z.null(),
      refreshToken: z.null().meta({ description: 'No refresh tokens: log in again when the token expires.' }),
    }),
    status: z.literal('SUCCESS'),
  })
  .meta({ id: 'LoginResponse' });

/** RFC 6749 §4.4.2: the form-encoded client-credentials request. */
export const tokenRequestFormSchema = z.object({
  grant_type: z.string().optional(),
  client_id: z.string().max(128).optional(),
  client_secret: z.string().max(512).optional(),
  scope: z.string().max(1024).optional(),
});

/** RFC 6749 §5.1: the form-encoded grant's answer. */
export const oauthTokenResponseSchema = z
  .strictObject({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: expiresInSchema,
    scope: z.string().meta({ description: 'The granted scopes, space-separated.' }),
  })
  .meta({ id: 'OAuthTokenResponse' });

/** RFC 6749 §5.2: the form-encoded grant's errors. */
export const oauthErrorSchema = z
  .strictObject({
    error: z.enum(['invalid_request', 'invalid_client', 'invalid_scope', 'unsupported_grant_type', 'too_many_attempts']),
    error_description: z.string(),
  })
  .meta({ id: 'OAuthError' });

/** The form as the document shows it; `tokenRequestFormSchema` is looser so each mistake gets its RFC error. */
export const clientCredentialsFormSchema = z
  .object({
    grant_type: z.literal('client_credentials'),
    client_id: z.string().max(128).optional().meta({ description: 'Or send the credentials with HTTP Basic.' }),
    client_secret: z.string().max(512).optional(),
    scope: z.string().max(1024).optional().meta({ description: "Space-separated subset of the client's scopes; all of them when absent." }),
  })
  .meta({ id: 'ClientCredentialsTokenRequest' });

/** The signing key and the retired ones still published (AUTH_PREVIOUS_KEYS_FILE holds at most one less). */
export const MAX_PUBLISHED_KEYS = 20;

/** The JSON Web Key Set this service's tokens verify with. */
export const jwksResponseSchema = z
  .strictObject({
    keys: z
      .array(
        z.strictObject({
          kid: z.string(),
          kty: z.enum(['EC', 'OKP']),
          crv: z.enum(['P-256', 'Ed25519']),
          x: z.string(),
          y: z.string().optional(),
          alg: z.enum(['ES256', 'EdDSA']),
          use: z.literal('sig'),
        }),
      )
      .max(MAX_PUBLISHED_KEYS),
  })
  .meta({ id: 'JsonWebKeySet' });
