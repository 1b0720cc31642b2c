import type { Request, RequestHandler } from 'express';
import { DomainError } from '../platform/errors/domain-error';
import { locationOf } from '../platform/http/request-context';
import { authOf, REALM } from './authenticate';
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

/** Whether the request's Platform-Session-Secret is valid for the customer in its path. */
export type SessionSecretCheck = (request: Request) => Promise<boolean>;

/**
 * Reading a customer's payment methods or default (operations 2 and 4):
 * `spi.customers:read` alone, or `simplified-payments-integration:read` with a
 * Platform-Session-Secret that belongs to that customer. Without a session
 * secret check wired in, the second path is always refused.
 */
export function requireCustomerRead(checkSessionSecret?: SessionSecretCheck): RequestHandler {
  return async (request, _response, next) => {
    const { scopes } = authOf(request);
    if (scopes.has(SCOPE.customersRead)) {
      next();
      return;
    }
    if (!scopes.has(SCOPE.integrationRead)) throw insufficientScope(SCOPE.customersRead);
    if (checkSessionSecret === undefined || !(await checkSessionSecret(request))) {
      throw new DomainError('SESSION_SECRET_INVALID', {
        headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
      });
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
