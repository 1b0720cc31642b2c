import type { RequestHandler } from 'express';
import { routeTemplateOf } from './route-template';

/** One log line per request when its answer is sent: what was asked, of whom, and how it went. */
export function requestLogger(): RequestHandler {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      request.log.info(
        {
          method: request.method,
          route: routeTemplateOf(request),
          status: response.statusCode,
          durationMs: Math.round(durationMs * 100) / 100,
          locationId: request.locationId,
          clientId: request.auth?.clientId,
        },
        'request completed',
      );
    });
    next();
  };
}
