import type { RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error';
import { onFirstUse } from '../on-first-use';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface PathTemplate {
  pattern: RegExp;
  methods: string[];
}

/** `/v1/customers/{id}` → a pattern for one path segment per parameter. */
function templatesOf(paths: Record<string, object | undefined>): PathTemplate[] {
  return Object.entries(paths).map(([template, item]) => {
    const source = template
      .split('/')
      .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const methods = HTTP_METHODS.filter((method) => (item as Record<string, unknown> | undefined)?.[method] !== undefined).map((method) =>
      method.toUpperCase(),
    );
    // Express answers HEAD wherever it answers GET.
    return { pattern: new RegExp(`^${source}/?$`), methods: methods.includes('GET') ? [...methods, 'HEAD'] : methods };
  });
}

/**
 * The last handler: no route took the request. If the path is one the OpenAPI
 * document describes, only the method was wrong: 405 with `Allow` listing the
 * methods the path takes (RFC 9110 §15.5.6). Otherwise 404.
 */
export function routeNotFound(paths: () => Record<string, object | undefined>): RequestHandler {
  // Read on the first request no route took: the paths come from the whole document, which is made only when needed.
  const templates = onFirstUse(() => templatesOf(paths()));
  return (request) => {
    const allowed = new Set(
      templates()
        .filter(({ pattern }) => pattern.test(request.path))
        .flatMap(({ methods }) => methods),
    );
    if (allowed.size > 0 && !allowed.has(request.method)) {
      throw new DomainError('METHOD_NOT_ALLOWED', { headers: { Allow: [...allowed].sort().join(', ') } });
    }
    throw new DomainError('ROUTE_NOT_FOUND');
  };
}
