import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './api-types';

/**
 * A typed client for integrators: every path, parameter, body and answer is
 * typed from the OpenAPI document (api-types.ts is generated from it by
 * `npm run openapi`), and openapi-fetch does the calls.
 */
export type PaymentProfilesClient = Client<paths>;

export interface PaymentProfilesClientOptions {
  /** Where the service runs, e.g. https://payments.example.com */
  baseUrl: string;
  /** Called before each request; return the current bearer token (see `fetchAccessToken`). */
  accessToken?: () => string | Promise<string>;
  fetch?: typeof globalThis.fetch;
}

export function createPaymentProfilesClient(options: PaymentProfilesClientOptions): PaymentProfilesClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const { accessToken } = options;
  if (accessToken !== undefined) {
    const bearer: Middleware = {
      async onRequest({ request }) {
        request.headers.set('Authorization', `Bearer ${await accessToken()}`);
        return request;
      },
    };
    client.use(bearer);
  }
  return client;
}

/** The headers every /v1 call takes: the location it acts for, and a session secret on the browser-side reads. */
export function locationHeaders(locationId: string): { 'Platform-Restaurant-External-ID': string };
export function locationHeaders(locationId: string, sessionSecret: string): { 'Platform-Restaurant-External-ID': string; 'Platform-Session-Secret': string };
export function locationHeaders(locationId: string, sessionSecret?: string) {
  return {
    'Platform-Restaurant-External-ID': locationId,
    ...(sessionSecret === undefined ? {} : { 'Platform-Session-Secret': sessionSecret }),
  };
}

async function fetchToken(
  client: PaymentProfilesClient,
  credentials: { clientId: string; clientSecret: string; scope?: string },
): Promise<{ accessToken: string; expiresIn: number }> {
  const { data, error, response } = await client.POST('/authentication/v1/authentication/login', { body: credentials });
  if (data === undefined || !('token' in data)) {
    throw new Error(`Login failed with HTTP ${response.status}: ${error && 'message' in error ? error.message : 'no token'}`);
  }
  return data.token;
}

/** Logs in with client credentials (the spec's JSON token call) and answers the access token, once (see `clientCredentials` to keep one fresh). */
export async function fetchAccessToken(
  client: PaymentProfilesClient,
  credentials: { clientId: string; clientSecret: string; scope?: string },
): Promise<string> {
  return (await fetchToken(client, credentials)).accessToken;
}

/** How long before its expiry a token is replaced: a call must not set out with a token that lapses on the way. */
const REFRESH_MARGIN_SECONDS = 60;

/**
 * An `accessToken` for `createPaymentProfilesClient` that logs in with client
 * credentials when first asked, keeps the token, and logs in again once it is
 * within a minute of expiring; concurrent calls share one login. A refused
 * login rejects the call that needed it (with the service's message), and the
 * next call tries again.
 */
export function clientCredentials(options: {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}): () => Promise<string> {
  const { baseUrl, fetch, now = Date.now, ...credentials } = options;
  const login = createPaymentProfilesClient({ baseUrl, ...(fetch ? { fetch } : {}) });
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return async () => {
    if (current !== undefined && now() < current.renewAt) return current.token;
    pending ??= fetchToken(login, credentials)
      .then(({ accessToken, expiresIn }) => {
        current = { token: accessToken, renewAt: now() + Math.max(0, expiresIn - REFRESH_MARGIN_SECONDS) * 1000 };
        return accessToken;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
