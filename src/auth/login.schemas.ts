import { z } from 'zod';

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
      expiresIn: z.int().meta({ description: 'Seconds until the access token expires.' }),
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
