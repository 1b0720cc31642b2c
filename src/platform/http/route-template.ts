import type { ErrorRequestHandler, Request } from 'express';

/**
 * The route template (`/v1/customers/:id`), never the raw path: a path can
 * carry identifiers a log or a metric label does not need and, from a careless
 * caller, data it must not hold. Metrics also need few distinct values.
 */
export function routeTemplateOf(request: Request): string {
  if (request.routeTemplate !== undefined) return request.routeTemplate;
  const template: unknown = request.route?.path;
  return typeof template === 'string' ? `${request.baseUrl}${template}` : '(unmatched)';
}

export interface RouteTemplate {
  method: string;
  /** Express's form, from the root: `/v1/customers/:id`. */
  template: string;
}

/**
 * For an error answered before any route ran (401 token, 400 location, 403
 * entitlement, 429 rate limit, 405 method), the template of the route its
 * path names: the one for its method, else any (a 405). Only error answers
 * pay for the match; a route that ran has set its own.
 */
export function labelErrorRoutes(routes: readonly RouteTemplate[]): ErrorRequestHandler {
  const patterns = routes.map(({ method, template }) => ({
    method: method.toUpperCase(),
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`),
  }));
  return (error, request, _response, next) => {
    if (request.routeTemplate === undefined) {
      const matching = patterns.filter(({ pattern }) => pattern.test(request.path));
      const chosen = matching.find(({ method }) => method === request.method || (method === 'GET' && request.method === 'HEAD')) ?? matching[0];
      if (chosen !== undefined) request.routeTemplate = chosen.template;
    }
    next(error);
  };
}
