import type { RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error';

/**
 * Headers that must be sent once. Node keeps only the first Authorization or
 * Content-Type of a request and joins other repeats with ", "; either way a
 * proxy in front may have read a different value than the service does, so a
 * repeat is refused rather than resolved. (The location header has its own
 * check and error code.)
 */
const SINGLE_VALUED = ['authorization', 'content-type', 'idempotency-key', 'platform-session-secret', 'x-request-id'];

const DISPLAY_NAME: Record<string, string> = {
  authorization: 'Authorization',
  'content-type': 'Content-Type',
  'idempotency-key': 'Idempotency-Key',
  'platform-session-secret': 'Platform-Session-Secret',
  'x-request-id': 'X-Request-Id',
};

export function singleValuedHeaders(): RequestHandler {
  return (request, _response, next) => {
    const seen = new Set<string>();
    // rawHeaders alternates names and values, as sent.
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = (request.rawHeaders[index] as string).toLowerCase();
      if (!SINGLE_VALUED.includes(name)) continue;
      if (seen.has(name)) {
        const fieldName = DISPLAY_NAME[name] ?? name;
        throw new DomainError('VALIDATION_FAILED', { fieldName, message: `${fieldName} must be sent once.` });
      }
      seen.add(name);
    }
    next();
  };
}
