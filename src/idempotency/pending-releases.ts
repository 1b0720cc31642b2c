import type { Knex } from 'knex';
import { releaseIdempotencyKey, type IdempotencyScope } from './idempotency-keys.repository';

interface PendingRelease {
  scope: IdempotencyScope;
  claimToken: string;
  /** After this, the claim has lapsed by the lock timeout anyway. */
  giveUpAt: number;
  /**
   * Until this, a release that finds no claim is not the end: the claim's own
   * insert, sent on a connection that was cut, may still commit (its answer
   * lost). Now for a claim known to have been made.
   */
  mayLandUntil: number;
}

const RETRY_INTERVAL_MS = 500;

/**
 * Claims that an attempt could not give back because the database was away
 * when it failed. They are retried every half second until the database
 * answers, so that the client's retry with the same key runs (rather than
 * answering 409 until the claim's lock timeout), or until that timeout, after
 * which another attempt may take the claim over anyway. Releasing is safe to
 * repeat: it deletes only a claim still in progress with this attempt's token,
 * never a stored answer (the failed commit may have succeeded).
 *
 * A claim whose own insert failed is given back too: a connection cut after
 * the insert was sent may have lost only its answer, and the server may
 * commit it later still (it was waiting for a lock, or its turn). Such a
 * release is retried until `claimSettleMs` (the statement timeout, which
 * bounds that insert) has passed, or until it finds the claim and removes it.
 *
 * A claim of a process that died stays until its lock timeout: no one is left
 * to know the attempt failed.
 */
export class PendingReleases {
  private readonly pending = new Map<string, PendingRelease>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Knex,
    private readonly settings: { lockTimeoutMs: number; claimSettleMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Gives the claim back now, or keeps trying in the background. `claimed`
   * false: the claim's own insert failed, so whether it landed (or will) is unknown.
   */
  async release(scope: IdempotencyScope, claimToken: string, claimed = true): Promise<void> {
    const now = this.now();
    const entry = { scope, claimToken, giveUpAt: now + this.settings.lockTimeoutMs, mayLandUntil: claimed ? now : now + this.settings.claimSettleMs };
    try {
      if (this.done(entry, await releaseIdempotencyKey(this.db, scope, claimToken))) return;
    } catch {
      // The database is away: retried below.
    }
    this.pending.set(claimToken, entry);
    this.schedule();
  }

  /** Whether a release that removed `released` claims leaves nothing to wait for. */
  private done(entry: PendingRelease, released: number): boolean {
    return released > 0 || this.now() >= entry.mayLandUntil;
  }

  /**
   * A retry with the same key reached this process while its earlier
   * attempt's claim still waits to be given back: give it back now, rather
   * than answer 409 until the next tick. True when one was given back.
   */
  async releaseNow(scope: IdempotencyScope): Promise<boolean> {
    let released = false;
    for (const entry of [...this.pending.values()]) {
      const { issuer, clientId, locationId, key } = entry.scope;
      if (issuer !== scope.issuer || clientId !== scope.clientId || locationId !== scope.locationId || key !== scope.key) continue;
      try {
        const count = await releaseIdempotencyKey(this.db, entry.scope, entry.claimToken);
        if (this.done(entry, count)) this.pending.delete(entry.claimToken);
        released ||= count > 0;
      } catch {
        return released;
      }
    }
    return released;
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.retryAll().finally(() => {
        if (this.pending.size > 0) this.schedule();
      });
    }, RETRY_INTERVAL_MS);
    // A stopping process does not wait for these: the lock timeout covers them.
    this.timer.unref();
  }

  private async retryAll(): Promise<void> {
    for (const entry of [...this.pending.values()]) {
      if (this.now() >= entry.giveUpAt) {
        this.pending.delete(entry.claimToken);
        continue;
      }
      try {
        if (this.done(entry, await releaseIdempotencyKey(this.db, entry.scope, entry.claimToken))) this.pending.delete(entry.claimToken);
      } catch {
        // Still away: the rest would fail alike. Try again at the next tick.
        return;
      }
    }
  }
}
