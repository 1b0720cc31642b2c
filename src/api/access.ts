import type { AccessTokenClaims } from '../platform/http/request-context';
import { DomainError } from '../platform/errors/domain-error';
import { REALM } from '../auth/authenticate';
import { SCOPE, type Scope } from '../auth/scopes';
import type { SessionGrant, SessionGrantLookup } from '../auth/session-grant';

/**
 * Who may call an operation, declared rather than coded. Either a scope; or,
 * for the reads a hosted checkout's browser side makes, that scope, or
 * `simplified-payments-integration:read` together with a live
 * Platform-Session-Secret whose grant names the record in the path: `is` is
 * the grant's field, `param` the parsed path parameter it must equal.
 */
export type Access<Param extends string = string> =
  { scope: Scope; sessionSecret?: undefined } | { scope: Scope; sessionSecret: { param: Param; is: keyof SessionGrant } };

function insufficientScope(scope: Scope): DomainError {
  return new DomainError('INSUFFICIENT_SCOPE', {
    message: `The access token lacks the scope ${scope}.`,
    headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"` },
  });
}

function sessionSecretInvalid(): DomainError {
  return new DomainError('SESSION_SECRET_INVALID', {
    headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
  });
}

/** The scopes any one of which lets a token call the operation (a browser read's with a session secret). */
export function scopesOf(access: Access): Scope[] {
  return access.sessionSecret === undefined ? [access.scope] : [access.scope, SCOPE.integrationRead];
}

/**
 * What the token decides, before the request is read: 403 without the
 * scope. A browser read that brings a session secret gets the secret's grant
 * back (a promise: it is looked up), to be held against the parsed path by
 * `checkSessionGrant`; a secret that is sent must be valid whichever scope
 * the token has (401 otherwise). Nothing to look up answers undefined at
 * once, so the common request waits for no extra turn of the event loop.
 */
export function authorize(
  access: Access,
  caller: AccessTokenClaims,
  request: { locationId: string; sessionSecret: string | undefined },
  lookup: SessionGrantLookup,
): Promise<SessionGrant> | undefined {
  const hasScope = caller.scopes.has(access.scope);
  if (access.sessionSecret === undefined) {
    if (!hasScope) throw insufficientScope(access.scope);
    return undefined;
  }
  if (!hasScope && !caller.scopes.has(SCOPE.integrationRead)) throw insufficientScope(access.scope);
  if (request.sessionSecret === undefined) {
    if (!hasScope) throw sessionSecretInvalid();
    return undefined;
  }
  return lookup(request.locationId, request.sessionSecret).then((grant) => {
    if (grant === undefined) throw sessionSecretInvalid();
    return grant;
  });
}

/** A secret's grant must name the record the path does (its parsed, lower-cased id). */
export function checkSessionGrant(access: Access, grant: SessionGrant | undefined, params: unknown): void {
  if (grant === undefined || access.sessionSecret === undefined) return;
  const { param, is } = access.sessionSecret;
  if (grant[is] === null || grant[is] !== (params as Record<string, unknown>)[param]) throw sessionSecretInvalid();
}
