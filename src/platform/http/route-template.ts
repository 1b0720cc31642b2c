import type { Request } from 'express';

/**
 * The route template (`/v1/customers/:id`), never the raw path: a path can
 * carry identifiers a log or a metric label does not need and, from a careless
 * caller, data it must not hold. Metrics also need few distinct values.
 */
export function routeTemplateOf(request: Request): string {
  const template: unknown = request.route?.path;
  return typeof template === 'string' ? `${request.baseUrl}${template}` : '(unmatched)';
}
