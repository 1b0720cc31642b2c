/** What one take of a lease brought back for a key. */
export interface Taken {
  /** Points of the lease the budget still had. */
  granted: number;
  /** Points the store had left after this take. */
  storeRemaining: number;
  /** Milliseconds until the key's window ends. */
  msLeft: number;
  /** The budget had no more points for this window: refuse without asking again until it ends. */
  exhausted: boolean;
}

/** A budget of points per key and window, kept where every replica counts (postgres-point-store.ts). */
export interface PointStore {
  /** Each window's length. */
  readonly windowMs: number;
  /** Takes `lease` points of each key's budget (the keys all different), in one round trip for all; what each got, in the keys' order. */
  take(storeKeys: readonly string[], lease: number): Promise<Taken[]>;
}

/**
 * What a take got, from the key's count after it: the store counts the whole
 * lease, and a lease that crosses the budget gets only the points below it.
 * What it counted past the budget is not given back, since the window is spent
 * whatever the count above it (a round trip saved for every replica's last lease).
 */
export function takenOf(countAfter: number, msLeft: number, budget: number, lease: number): Taken {
  if (countAfter <= budget) return { granted: lease, storeRemaining: budget - countAfter, msLeft: Math.max(0, msLeft), exhausted: false };
  return { granted: Math.max(0, budget - (countAfter - lease)), storeRemaining: 0, msLeft: Math.max(1, msLeft), exhausted: true };
}
