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
export function locationHeaders(
  locationId: string,
  sessionSecret: string,
): { 'Platform-Restaurant-External-ID': string; 'Platform-Session-Secret': string };
export function locationHeaders(locationId: string, sessionSecret?: string) {
  return {
    'Platform-Restaurant-External-ID': locationId,
    ...(sessionSecret === undefined ? {} : { 'Platform-Session-Secret': sessionSecret }),
  };
}

/** Logs in with client credentials (the spec's JSON token call) and answers the access token. */
export async function fetchAccessToken(
  client: PaymentProfilesClient,
  credentials: { clientId: string; clientSecret: string; scope?: string },
): Promise<string> {
  const { data, error, response } = await client.POST('/authentication/v1/authentication/login', { body: credentials });
  if (data === undefined || !('token' in data)) {
    throw new Error(`Login failed with HTTP ${response.status}: ${error && 'message' in error ? error.message : 'no token'}`);
  }
  return data.token.accessToken;
}
