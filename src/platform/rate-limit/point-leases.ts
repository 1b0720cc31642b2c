import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** What one request drew from its key's budget. */
export interface Draw {
  allowed: boolean;
  /** Points left in the window, as far as this process knows. */
  remaining: number;
  msBeforeReset: number;
}

interface Lease {
  left: number;
  /** Points the shared store had left when this lease was taken. */
  storeRemaining: number;
  endsAt: number;
  /** The store had no more points for this window: refuse without asking again until it ends. */
  exhausted: boolean;
}

/** A fiftieth of the budget per lease, at most 100: a handful of round trips per window, and little left unused. */
export function leaseSizeFor(points: number): number {
  return Math.min(100, Math.max(1, Math.floor(points / 50)));
}

/** Past this many keys, leases of windows that have ended are swept. */
const SWEEP_AT = 10_000;

/**
 * Draws points from a shared limiter (PostgreSQL) in leases: one round trip
 * takes `leaseSize` points, which this process then hands out one per request
 * until they run out or the window ends. A budget is never exceeded across
 * replicas, since every point handed out was first taken from the store; a
 * replica may at worst refuse while another still holds unused leased points
 * (at most leaseSize - 1 each). Concurrent requests of one key share one
 * refill. Once the store says the window is spent, requests are refused from
 * memory until it ends, so a flood of refused requests costs the database nothing.
 */
export class PointLeases {
  private readonly leases = new Map<string, Lease>();
  private readonly refills = new Map<string, Promise<void>>();

  constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly points: number,
    private readonly leaseSize: number,
    private readonly now: () => number = Date.now,
  ) {}

  async draw(key: string): Promise<Draw> {
    for (;;) {
      const lease = this.leases.get(key);
      const now = this.now();
      if (lease !== undefined && lease.endsAt > now) {
        if (lease.left > 0) {
          lease.left -= 1;
          return { allowed: true, remaining: lease.storeRemaining + lease.left, msBeforeReset: lease.endsAt - now };
        }
        if (lease.exhausted) return { allowed: false, remaining: 0, msBeforeReset: lease.endsAt - now };
      }
      let refill = this.refills.get(key);
      if (refill === undefined) {
        refill = this.refill(key).finally(() => this.refills.delete(key));
        this.refills.set(key, refill);
      }
      await refill;
    }
  }

  private async refill(key: string): Promise<void> {
    if (this.leases.size >= SWEEP_AT) this.sweep();
    try {
      const taken = await this.limiter.consume(key, this.leaseSize);
      this.leases.set(key, { left: this.leaseSize, storeRemaining: taken.remainingPoints, endsAt: this.now() + taken.msBeforeNext, exhausted: false });
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      // The store counted the whole lease; what it had left before is ours, the rest goes back.
      const granted = Math.max(0, this.points - (refused.consumedPoints - this.leaseSize));
      const excess = this.leaseSize - granted;
      if (excess > 0) await this.limiter.reward(key, excess);
      this.leases.set(key, { left: granted, storeRemaining: 0, endsAt: this.now() + Math.max(1, refused.msBeforeNext), exhausted: true });
    }
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, lease] of this.leases) if (lease.endsAt <= now) this.leases.delete(key);
  }
}
