import type { RequestHandler } from 'express';
import type { Logger } from '../logger';
import { routeTemplateOf } from './route-template';

/** Every field of the access line: typed, and none of them can hold a secret or a card number. */
interface AccessLine {
  requestId: string;
  method: string;
  /** The route's template (`/v1/customers/:id`), never the raw path. */
  route: string;
  status: number;
  durationMs: number;
  /** Set only once the location header passed its checks (card numbers are refused there). */
  locationId: string | undefined;
  clientId: string | undefined;
}

/**
 * One log line per request when its answer is sent: what was asked, of whom,
 * and how it went. The line is written without the logger's path redaction,
 * which is most of a request's logging cost (docs/performance-history.md) and has nothing
 * to find in the fixed, typed fields above; every other log line keeps it.
 */
export function requestLogger(logger: Logger): RequestHandler {
  const access = logger.child({}, { redact: { paths: [] } });
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      // A shed request is counted in load-shedding.ts's summary line instead.
      if (response.locals.shed === true) return;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const line: AccessLine = {
        requestId: request.requestId,
        method: request.method,
        route: routeTemplateOf(request),
        status: response.statusCode,
        durationMs: Math.round(durationMs * 100) / 100,
        locationId: request.locationId,
        // A refused login has no token: the client id it tried, so that an operator can tell who is failing.
        clientId: request.auth?.clientId ?? request.attemptedClientId,
      };
      access.info(line, 'request completed');
    });
    next();
  };
}
