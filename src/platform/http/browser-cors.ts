import cors from 'cors';
import type { RequestHandler } from 'express';
import { LOCATION_HEADER } from './location-header';

/** An operation a browser may call: its method and its OpenAPI path template. */
export interface BrowserOperation {
  method: string;
  path: string;
}

/** `/v1/customers/{id}/payment-methods` → a pattern matching its concrete paths (one segment per parameter). */
function patternOf(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/**
 * CORS for the browser-side operations only, each by its path and method
 * (a server-only POST at the path of a browser read gets none), from the
 * configured origins only (none by default): a preflight from any other
 * origin, or for any other operation, gets no CORS headers, so the browser
 * refuses the call. Credentials travel in headers, not cookies.
 * `credentialHeaders` are the headers a page may send besides the token and
 * the location.
 */
export function browserCors(allowedOrigins: readonly string[], credentialHeaders: readonly string[], operations: readonly BrowserOperation[]): RequestHandler {
  const routes = [...new Set(operations.map(({ path }) => path))].map((path) => ({
    pattern: patternOf(path),
    methods: operations.filter((operation) => operation.path === path).map(({ method }) => method.toUpperCase()),
  }));
  const handlers = new Map(
    routes.map(({ methods }) => [
      methods.join(','),
      cors({
        origin: [...allowedOrigins],
        methods,
        allowedHeaders: ['Authorization', LOCATION_HEADER, ...credentialHeaders, 'Content-Type', 'X-Request-Id'],
        exposedHeaders: ['X-Request-Id'],
        maxAge: 600,
      }),
    ]),
  );
  return (request, response, next) => {
    if (request.headers.origin === undefined) return next();
    // A preflight asks for the method it will use; a call is its own.
    const method = (request.method === 'OPTIONS' ? request.get('Access-Control-Request-Method') : request.method)?.toUpperCase();
    const route = method === undefined ? undefined : routes.find(({ pattern, methods }) => methods.includes(method) && pattern.test(request.path));
    if (route === undefined) return next();
    return (handlers.get(route.methods.join(',')) as RequestHandler)(request, response, next);
  };
}
