import type { Request, RequestHandler } from 'express';
import { DomainError } from '../platform/errors/domain-error';
import { authOf, locationOf } from '../platform/http/request-context';
import { REALM } from './authenticate';
import { SESSION_SECRET_HEADER } from '../payment-intents/session-secret';
import { ALL_LOCATIONS, SCOPE, type Scope } from './scopes';

function insufficientScope(scope: Scope): DomainError {
  return new DomainError('INSUFFICIENT_SCOPE', {
    message: `The access token lacks the scope ${scope}.`,
    headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"` },
  });
}

/** The operation needs this scope on the bearer's token. */
export function requireScope(scope: Scope): RequestHandler {
  return (request, _response, next) => {
    if (!authOf(request).scopes.has(scope)) throw insufficientScope(scope);
    next();
  };
}

/** Whether `secret` (a Platform-Session-Secret) grants this request's read. */
export type SessionSecretCheck = (request: Request, secret: string) => Promise<boolean>;

function sessionSecretInvalid(): DomainError {
  return new DomainError('SESSION_SECRET_INVALID', {
    headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
  });
}

/**
 * A read the browser side may make: with `fullScope` alone, or with
 * `simplified-payments-integration:read` and a Platform-Session-Secret that
 * `checkSessionSecret` accepts. A secret that is sent must be valid whichever
 * scope the token has. Without a check wired in, no secret is valid.
 */
export function requireReadWithSessionSecret(fullScope: Scope, checkSessionSecret?: SessionSecretCheck): RequestHandler {
  return async (request, _response, next) => {
    const { scopes } = authOf(request);
    const hasFullScope = scopes.has(fullScope);
    if (!hasFullScope && !scopes.has(SCOPE.integrationRead)) throw insufficientScope(fullScope);
    const secret = request.get(SESSION_SECRET_HEADER);
    if (secret === undefined) {
      if (!hasFullScope) throw sessionSecretInvalid();
    } else if (checkSessionSecret === undefined || !(await checkSessionSecret(request, secret))) {
      throw sessionSecretInvalid();
    }
    next();
  };
}

/** The token must entitle its bearer to the request's location; runs after the location header is read. */
export function requireLocationEntitlement(): RequestHandler {
  return (request, _response, next) => {
    const { locations } = authOf(request);
    if (!locations.includes(ALL_LOCATIONS) && !locations.includes(locationOf(request))) {
      throw new DomainError('LOCATION_NOT_PERMITTED');
    }
    next();
  };
}
