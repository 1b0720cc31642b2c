import { BatchedCalls } from '../batched-calls';
import { SweptMap } from '../swept-map';
import type { PointStore, Taken } from './point-store';

/** What one request drew from its key's budget. */
export interface Draw {
  allowed: boolean;
  /** Points left in the window, as far as this process knows. */
  remaining: number;
  msBeforeReset: number;
}

interface Lease {
  left: number;
  /** Points the shared store had left when this lease was last topped up. */
  storeRemaining: number;
  endsAt: number;
  /** The store had no more points for this window: refuse without asking again until it ends. */
  exhausted: boolean;
}

/** A fiftieth of the budget per lease, at most 100: a handful of round trips per window, and little left unused. */
export function leaseSizeFor(points: number): number {
  return Math.min(100, Math.max(1, Math.floor(points / 50)));
}

/** Past this many keys, leases of windows that have ended are swept (swept-map.ts). */
const SWEEP_AT = 10_000;

/** Keys whose leases one round trip takes at most. */
const KEYS_A_TAKE = 500;

/**
 * Draws points from a shared store (PostgreSQL) in leases: one round trip
 * takes `leaseSize` points, which this process then hands out one per request
 * until they run out or the window ends. A budget is never exceeded across
 * replicas, since every point handed out was first taken from the store; a
 * replica may at worst refuse while another still holds unused leased points
 * (fewer than one and a half leases each).
 *
 * The next lease is taken ahead, once half of the current one is handed out,
 * so requests do not wait for the store: under load its round trip queues
 * behind every request waiting for a database connection, and the requests
 * of that key would queue behind it. Concurrent requests of one key share one
 * refill, and the refills of many keys share a round trip: those asked for
 * while one is in flight go together in the next (batched-calls.ts), so a
 * process serving many new keys at once (a client acting for many locations)
 * makes a statement per batch, not per key. Once the store says the window
 * is spent, requests are refused from memory until it ends, so a flood of
 * refused requests costs the database nothing.
 */
export class PointLeases {
  private readonly leases: SweptMap<string, Lease>;
  /** One refill at most per key at a time (`refills`), so a batch's keys are all different, as the store needs. */
  private readonly refills = new Map<string, Promise<void>>();
  private readonly takes: BatchedCalls<string, Taken>;
  private readonly lowWater: number;
  /** Two results for one key that end further apart than this are of different windows. */
  private readonly sameWindowMs: number;

  constructor(
    store: PointStore,
    leaseSize: number,
    private readonly now: () => number = Date.now,
    /** The key as the store keeps it; worked out only for a round trip, not for every draw. */
    private readonly storeKeyOf: (key: string) => string = (key) => key,
  ) {
    this.leases = new SweptMap(SWEEP_AT, (lease, at) => lease.endsAt <= at, now);
    this.takes = new BatchedCalls((storeKeys) => store.take(storeKeys, leaseSize), KEYS_A_TAKE);
    this.lowWater = Math.ceil(leaseSize / 2);
    this.sameWindowMs = store.windowMs / 2;
  }

  async draw(key: string): Promise<Draw> {
    for (;;) {
      const lease = this.leases.get(key);
      const now = this.now();
      if (lease !== undefined && lease.endsAt > now) {
        if (lease.left > 0) {
          lease.left -= 1;
          if (lease.left < this.lowWater && !lease.exhausted) this.refillAhead(key);
          return { allowed: true, remaining: lease.storeRemaining + lease.left, msBeforeReset: lease.endsAt - now };
        }
        if (lease.exhausted) return { allowed: false, remaining: 0, msBeforeReset: lease.endsAt - now };
      }
      await this.refill(key);
    }
  }

  /** The refill in flight for this key, or a new one. */
  private refill(key: string): Promise<void> {
    let refill = this.refills.get(key);
    if (refill === undefined) {
      refill = this.takes
        .call(this.storeKeyOf(key))
        .then((taken) => this.settle(key, taken, this.now() + taken.msLeft))
        .finally(() => this.refills.delete(key));
      this.refills.set(key, refill);
    }
    return refill;
  }

  private refillAhead(key: string): void {
    if (this.refills.has(key)) return;
    // A store failure here is not lost: the draw that finds the lease empty
    // starts a refill of its own, meets the same failure and fails with it.
    this.refill(key).catch(() => undefined);
  }

  /**
   * Tops up the current lease when the points come from its window; otherwise
   * the store has moved on to a new window and the old lease's points, taken
   * from a window that has ended, are dropped.
   */
  private settle(key: string, taken: Taken, endsAt: number): void {
    const lease = this.leases.get(key);
    const sameWindow = lease !== undefined && lease.endsAt > this.now() && Math.abs(endsAt - lease.endsAt) < this.sameWindowMs;
    if (!sameWindow) {
      this.leases.set(key, { left: taken.granted, storeRemaining: taken.storeRemaining, endsAt, exhausted: taken.exhausted });
      return;
    }
    lease.left += taken.granted;
    lease.storeRemaining = taken.storeRemaining;
    lease.exhausted = taken.exhausted;
  }
}
