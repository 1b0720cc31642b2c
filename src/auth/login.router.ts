import express, { Router, type Request, type Response } from 'express';
import { DomainError } from '../platform/errors/domain-error';
import { jsonBody } from '../platform/http/json-body';
import { parseInput } from '../platform/validation/parse-input';
import { REALM } from './authenticate';
import type { LoginFailure, LoginService } from './login.service';
import { loginRequestSchema, tokenRequestFormSchema } from './login.schemas';

export const LOGIN_PATH = '/authentication/v1/authentication/login';

const parseForm = express.urlencoded({ extended: false, limit: '10kb', parameterLimit: 20 });

/**
 * The caller's address as Express reads it: the socket's peer, or with
 * TRUST_PROXY set, the address the trusted proxies forwarded.
 */
function sourceAddressOf(request: Request): string {
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}

/** RFC 6749 §5.1: token answers are never cached. */
function noStore(response: Response): Response {
  return response.setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache');
}

/**
 * The token endpoint, in two wire formats: the spec's JSON login (answers and
 * errors as ErrorMessage) and RFC 6749 §4.4's form-encoded client-credentials
 * grant (answers and errors as RFC 6749 §5).
 */
export function loginRouter(login: LoginService): Router {
  const router = Router();
  router.post(LOGIN_PATH, (request, response, next) => {
    // Every answer, refusals of malformed input included.
    noStore(response);
    if (request.is('application/x-www-form-urlencoded')) {
      parseForm(request, response, (error?: unknown) => (error ? next(error) : oauthLogin(login, request, response).catch(next)));
      return;
    }
    jsonBody({ anyContentType: false })(request, response, (error?: unknown) => (error ? next(error) : jsonLogin(login, request, response).catch(next)));
  });
  return router;
}

async function jsonLogin(login: LoginService, request: Request, response: Response): Promise<void> {
  const input = parseInput(loginRequestSchema, request.body);
  const result = await login.login(input.clientId, input.clientSecret, sourceAddressOf(request), input.scope);
  noStore(response);
  if (!result.ok) {
    request.attemptedClientId = result.loggedClientId;
    throw jsonLoginError(result.failure);
  }
  const { accessToken, expiresIn, scope } = result.token;
  response.status(200).json({
    token: { tokenType: 'Bearer', scope, expiresIn, accessToken, idToken: null, refreshToken: null },
    status: 'SUCCESS',
  });
}

function jsonLoginError(failure: LoginFailure): DomainError {
  switch (failure.kind) {
    case 'invalid_client':
      return new DomainError('INVALID_CLIENT_CREDENTIALS');
    case 'invalid_scope':
      return new DomainError('VALIDATION_FAILED', { fieldName: 'scope', message: `The client may not request the scope ${failure.scope}.` });
    case 'throttled':
      return new DomainError('TOO_MANY_LOGIN_ATTEMPTS', { headers: { 'Retry-After': String(failure.retryAfterSeconds) } });
  }
}

/** RFC 6749 §5.2 error answer. */
function oauthError(response: Response, status: number, error: string, description: string): void {
  noStore(response).status(status).json({ error, error_description: description });
}

/** RFC 6749 §2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`. */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | 'malformed' | undefined {
  if (header === undefined || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon)), clientSecret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

async function oauthLogin(login: LoginService, request: Request, response: Response): Promise<void> {
  const body: unknown = request.body ?? {};
  // A parameter sent twice arrives as an array; RFC 6749 §3.2 forbids repeats.
  const form = tokenRequestFormSchema.safeParse(body);
  if (!form.success) return oauthError(response, 400, 'invalid_request', 'Each parameter must be sent once, as text.');
  const { grant_type: grantType, client_id: bodyId, client_secret: bodySecret, scope } = form.data;
  if (grantType === undefined) return oauthError(response, 400, 'invalid_request', 'grant_type is required.');
  if (grantType !== 'client_credentials') {
    return oauthError(response, 400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
  }

  const basic = basicCredentials(request.headers.authorization);
  if (basic === 'malformed') return oauthError(response, 400, 'invalid_request', 'The Basic credentials are malformed.');
  if (basic !== undefined && (bodyId !== undefined || bodySecret !== undefined)) {
    return oauthError(response, 400, 'invalid_request', 'Send the client credentials once: in the Basic header or in the body.');
  }
  const credentials = basic ?? (bodyId !== undefined && bodySecret !== undefined ? { clientId: bodyId, clientSecret: bodySecret } : undefined);
  if (credentials === undefined) {
    response.setHeader('WWW-Authenticate', `Basic realm="${REALM}"`);
    return oauthError(response, 401, 'invalid_client', 'Client authentication is required.');
  }

  const result = await login.login(credentials.clientId, credentials.clientSecret, sourceAddressOf(request), scope);
  if (result.ok) {
    const { accessToken, expiresIn, scope: granted } = result.token;
    noStore(response).status(200).json({ access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope: granted });
    return;
  }
  const { failure } = result;
  request.attemptedClientId = result.loggedClientId;
  if (failure.kind === 'invalid_client') {
    response.setHeader('WWW-Authenticate', `Basic realm="${REALM}"`);
    return oauthError(response, 401, 'invalid_client', 'Client authentication failed.');
  }
  if (failure.kind === 'invalid_scope') {
    return oauthError(response, 400, 'invalid_scope', `The client may not request the scope ${failure.scope}.`);
  }
  response.setHeader('Retry-After', String(failure.retryAfterSeconds));
  return oauthError(response, 429, 'too_many_attempts', 'Too many failed logins for this client; retry later.');
}
