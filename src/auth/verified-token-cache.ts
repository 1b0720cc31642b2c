import { hash } from 'node:crypto';
import type { AccessTokenClaims } from '../platform/http/request-context';

interface Entry {
  claims: AccessTokenClaims;
  expiresAtMs: number;
}

/** Enough for every live token of a busy deployment; beyond it the oldest entries go first. */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/**
 * The claims of tokens already verified, so a client's second request with the
 * same token skips the signature check (ES256 verification is most of the CPU
 * an authenticated request costs). Keyed by a SHA-256 of the whole token, so
 * any change to it, its signature included, misses and is verified afresh;
 * an entry is dropped at the token's `exp`, never later. The token itself is
 * not kept.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, Entry>();
  /** Tokens kept since expired entries were last swept out. */
  private keptSinceSweep = 0;

  constructor(
    private readonly maxEntries = VERIFIED_TOKEN_CACHE_SIZE,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(token: string): AccessTokenClaims | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.claims;
  }

  /** Keeps the claims of a token that just passed verification until its `exp` (seconds since the epoch). */
  set(token: string, claims: AccessTokenClaims, expSeconds: number): void {
    const expiresAtMs = expSeconds * 1000;
    // A token accepted within the clock tolerance after its exp is not kept.
    if (expiresAtMs <= this.now()) return;
    if (this.entries.size >= this.maxEntries) this.evict();
    this.entries.set(keyOf(token), { claims, expiresAtMs });
    this.keptSinceSweep += 1;
  }

  /**
   * Expired entries first; if none, the oldest inserted (a Map iterates in
   * insertion order). The expired are swept at most once per an eighth of
   * the size of tokens kept: were they swept for each, a cache full of live
   * tokens would be scanned whole for every new one. Between sweeps an
   * expired entry goes when it is next asked for, or as the oldest.
   */
  private evict(): void {
    if (this.keptSinceSweep >= this.maxEntries / 8) {
      this.keptSinceSweep = 0;
      const now = this.now();
      for (const [key, entry] of this.entries) if (entry.expiresAtMs <= now) this.entries.delete(key);
      if (this.entries.size < this.maxEntries) return;
    }
    const oldest = this.entries.keys().next();
    if (!oldest.done) this.entries.delete(oldest.value);
  }
}

/** The one-shot hash: no Hash object per request (half the cost of `createHash` for a token). */
function keyOf(token: string): string {
  return hash('sha256', token, 'base64url');
}
