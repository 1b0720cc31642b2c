import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { DomainError } from '../platform/errors/domain-error';
import { claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey, type IdempotencyScope, type StoredReply } from './idempotency-keys.repository';
import { PendingReleases } from './pending-releases';

export interface IdempotencySettings {
  /** How long an answer is kept and replayed (24 h by default, as Stripe does). */
  ttlSeconds: number;
  /** After this long unfinished, a claim is presumed dead (its process gone) and a retry may take it over. */
  lockTimeoutSeconds: number;
  /** DB_STATEMENT_TIMEOUT_MS: bounds how long a claim's insert whose answer was lost may still commit on the server. */
  statementTimeoutMs: number;
}

/** Past the statement timeout, for the server to end the statement and the answer to be read. */
const CLAIM_SETTLE_MARGIN_MS = 1000;

export type IdempotentOutcome = { kind: 'fresh'; reply: StoredReply } | { kind: 'replayed'; reply: StoredReply };

/**
 * Runs creating requests at most once per Idempotency-Key, after the IETF
 * draft (draft-ietf-httpapi-idempotency-key-header) and Stripe:
 *
 * - the first attempt claims the key; its record and its answer commit in one
 *   transaction, so a retry either replays that answer or finds nothing done;
 * - a retry with the same request replays the stored status and body;
 * - the same key with a different request is 422, and while the first attempt
 *   is still running, 409 with Retry-After;
 * - an attempt that stores nothing (refused input, a fault) gives the key back,
 *   as soon as the database answers again if it was away, and so does an
 *   attempt whose claim's answer a cut connection lost (pending-releases.ts).
 */
export class IdempotentCreates {
  private readonly releases: PendingReleases;

  constructor(
    private readonly db: Knex,
    private readonly settings: IdempotencySettings,
  ) {
    this.releases = new PendingReleases(db, {
      lockTimeoutMs: settings.lockTimeoutSeconds * 1000,
      claimSettleMs: settings.statementTimeoutMs + CLAIM_SETTLE_MARGIN_MS,
    });
  }

  /**
   * `attempt` answers the reply, or throws what must not be stored. It is
   * given the transaction that also stores the reply (as `toStored` makes
   * it), and must make every write in it.
   */
  async run(
    scope: IdempotencyScope,
    fingerprint: string,
    attempt: (db: Knex.Transaction) => Promise<StoredReply>,
    toStored: (reply: StoredReply) => StoredReply = (reply) => reply,
  ): Promise<IdempotentOutcome> {
    const claimToken = randomUUID();
    const claim = () => claimIdempotencyKey(this.db, scope, { fingerprint, claimToken, ...this.settings });
    let claimed: boolean;
    try {
      // Held by this process's own failed attempt, still waiting to be given back: given back now, then claimed.
      claimed = (await claim()) || ((await this.releases.releaseNow(scope)) && (await claim()));
    } catch (error) {
      // The insert may have landed, or may yet, with its answer lost: given back all the same.
      await this.releases.release(scope, claimToken, false);
      throw error;
    }
    if (!claimed) return { kind: 'replayed', reply: await this.earlierReply(scope, fingerprint) };
    try {
      const reply = await this.db.transaction(async (trx) => {
        const made = await attempt(trx);
        if (!(await completeIdempotencyKey(trx, scope, claimToken, toStored(made)))) throw new DomainError('CONFLICT');
        return made;
      });
      return { kind: 'fresh', reply };
    } catch (error) {
      await this.releases.release(scope, claimToken);
      throw error;
    }
  }

  private async earlierReply(scope: IdempotencyScope, fingerprint: string): Promise<StoredReply> {
    const earlier = await findIdempotencyKey(this.db, scope);
    // Completed and purged between the claim and this read: rare; the caller retries.
    if (earlier === undefined) throw new DomainError('CONFLICT');
    if (earlier.fingerprint !== fingerprint) throw new DomainError('IDEMPOTENCY_KEY_REUSED', { fieldName: 'Idempotency-Key' });
    if (earlier.state === 'in_progress') {
      throw new DomainError('IDEMPOTENCY_REQUEST_IN_PROGRESS', { headers: { 'Retry-After': '1' } });
    }
    return earlier.reply;
  }
}
