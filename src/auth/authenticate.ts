import type { RequestHandler } from 'express';
import { DomainError } from '../platform/errors/domain-error';
import { invalidToken, type TokenVerifier } from './token-verifier';

export const REALM = 'customer-payment-profiles';

// RFC 6750 §2.1: "Bearer" (any case), one space, a b64token.
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** Requires a valid bearer access token and keeps its claims on the request. */
export function authenticate(verifier: TokenVerifier): RequestHandler {
  return async (request, _response, next) => {
    const header = request.headers.authorization;
    if (header === undefined || !/^bearer /i.test(header)) {
      throw new DomainError('AUTHENTICATION_REQUIRED', { headers: { 'WWW-Authenticate': `Bearer realm="${REALM}"` } });
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) throw invalidToken();
    request.auth = await verifier.verify(token);
    next();
  };
}
