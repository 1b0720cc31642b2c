import type { Request } from 'express';
import type { Knex } from 'knex';
import { DomainError } from '../platform/errors/domain-error';
import { ERROR_CATALOG } from '../platform/errors/error-catalog';
import { toErrorMessage } from '../platform/errors/to-error-message';
import { authOf, locationOf } from '../platform/http/request-context';
import type { StoredReply } from './idempotency-keys.repository';
import { requestFingerprint } from './idempotency-key';
import type { IdempotentCreates, IdempotentOutcome } from './idempotent-creates';

/**
 * Which refusals are kept for a key: a 404 says the records are not there,
 * which is as much an answer as a 2xx. Refused input (400), conflicts to retry
 * (409) and faults (5xx) store nothing, so a corrected retry can run.
 */
const STORED_ERROR_STATUSES: ReadonlySet<number> = new Set([404]);

/** The attempt's reply, or a storable refusal as the ErrorMessage the error handler would have sent. */
async function storable(requestId: string, attempt: () => Promise<StoredReply>): Promise<StoredReply> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof DomainError) || !STORED_ERROR_STATUSES.has(ERROR_CATALOG[error.errorCode].status)) throw error;
    const body = toErrorMessage(error.errorCode, requestId, error.details);
    return { status: body.status, body };
  }
}

/**
 * Runs a request that carries an Idempotency-Key (see IdempotentCreates) for
 * its caller and location: `attempt` is given the claim's transaction, in which
 * its answer is stored too (as `toStored` makes it: without a secret it holds).
 */
export function runIdempotently(
  creates: IdempotentCreates,
  request: Request,
  key: string,
  attempt: (db: Knex.Transaction) => Promise<StoredReply>,
  options: { toStored?: (reply: StoredReply) => StoredReply } = {},
): Promise<IdempotentOutcome> {
  const { issuer, clientId } = authOf(request);
  const scope = { issuer, clientId, locationId: locationOf(request), key };
  return creates.run(scope, requestFingerprint(request), (db) => storable(request.requestId, () => attempt(db)), options.toStored);
}
