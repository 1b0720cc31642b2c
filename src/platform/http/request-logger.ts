import type { Request, RequestHandler } from 'express';

/**
 * The route template, never the raw path: a path can carry identifiers a log
 * does not need and, from a careless caller, data it must not hold.
 */
function routeOf(request: Request): string {
  const template: unknown = request.route?.path;
  return typeof template === 'string' ? `${request.baseUrl}${template}` : '(unmatched)';
}

/** One log line per request when its answer is sent: what was asked, of whom, and how it went. */
export function requestLogger(): RequestHandler {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      request.log.info(
        {
          method: request.method,
          route: routeOf(request),
          status: response.statusCode,
          durationMs: Math.round(durationMs * 100) / 100,
          locationId: request.locationId,
        },
        'request completed',
      );
    });
    next();
  };
}
