import type { Request, RequestHandler, Response } from 'express';
import { DomainError } from '../platform/errors/domain-error';
import { ERROR_CATALOG } from '../platform/errors/error-catalog';
import { toErrorMessage } from '../platform/errors/to-error-message';
import { authOf, locationOf } from '../platform/http/request-context';
import type { StoredReply } from './idempotency-keys.repository';
import { IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyOf, requestFingerprint } from './idempotency-key';
import type { IdempotentCreates } from './idempotent-creates';

/** A creating operation's answer, returned rather than sent so that it can be stored. */
export type CreateHandler = (request: Request) => Promise<StoredReply>;

/**
 * Which refusals are kept for a key: a 404 says the records are not there,
 * which is as much an answer as a 2xx. Refused input (400), conflicts to retry
 * (409) and faults (5xx) store nothing, so a corrected retry can run.
 */
const STORED_ERROR_STATUSES: ReadonlySet<number> = new Set([404]);

function send(response: Response, reply: StoredReply): void {
  response.status(reply.status).json(reply.body);
}

/** The handler's reply, or a storable refusal as the ErrorMessage the error handler would have sent. */
async function attemptOnce(request: Request, handle: CreateHandler): Promise<StoredReply> {
  try {
    return await handle(request);
  } catch (error) {
    if (!(error instanceof DomainError) || !STORED_ERROR_STATUSES.has(ERROR_CATALOG[error.errorCode].status)) throw error;
    const body = toErrorMessage(error.errorCode, request.requestId, error.details);
    return { status: body.status, body };
  }
}

/** A creating POST that honours Idempotency-Key (see IdempotentCreates); without one it simply runs. */
export function idempotentRoute(creates: IdempotentCreates, handle: CreateHandler): RequestHandler {
  return async (request, response) => {
    const key = idempotencyKeyOf(request);
    if (key === undefined) return send(response, await handle(request));
    const { issuer, clientId } = authOf(request);
    const scope = { issuer, clientId, locationId: locationOf(request), key };
    const outcome = await creates.run(scope, requestFingerprint(request), () => attemptOnce(request, handle));
    if (outcome.kind === 'replayed') response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    send(response, outcome.reply);
  };
}
