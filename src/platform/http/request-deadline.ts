import type { RequestHandler } from 'express';
import { abandonScope, runInWorkScope } from '../db/abandoned-work';
import type { Logger } from '../logger';
import { sendErrorMessage } from './error-handler';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set once the deadline answered for the request: whatever the handler does later is not sent. */
      pastDeadline?: boolean;
    }
  }
}

/**
 * Gives every request a deadline: a request still unanswered after
 * `timeoutMs` (the database stalled, or slowed by its network) is answered
 * 503 with Retry-After, rather than held for as long as the fault lasts. Its
 * work on the database is stopped then (abandoned-work.ts): the statement
 * under way is canceled and its connection closed, so a transaction never
 * commits after the 503 and the pool is not held by answered requests. A
 * statement that had already committed stays committed: as with any timeout,
 * a client retries with its Idempotency-Key to learn the outcome.
 */
export function requestDeadline(timeoutMs: number, logger: Logger): RequestHandler {
  return (request, response, next) => {
    const timer = setTimeout(() => {
      if (response.headersSent) return;
      request.pastDeadline = true;
      abandonScope(scope);
      logger.warn({ requestId: request.requestId, timeoutMs }, 'request answered 503 at its deadline');
      sendErrorMessage(request, response, 'SERVICE_UNAVAILABLE', { message: 'The request could not be completed in time. Retry later.' });
    }, timeoutMs);
    response.once('close', () => clearTimeout(timer));
    // Set before the timer can fire: it fires on a later turn of the event loop.
    const scope = runInWorkScope(next);
  };
}
