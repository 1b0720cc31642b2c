/**
 * A map of entries that each hold for a window (a rate limit lease, a
 * remembered clock offset), for a process that may meet ever more keys.
 * Once it holds `firstSweepAt` entries, adding another first drops those
 * whose window has passed; the next sweep then waits until the map is twice
 * what was left (never below `firstSweepAt`). Were the mark fixed, a map
 * full of entries still in their windows would be scanned whole for every
 * key added; as it is, each sweep is paid for by as many adds as it scans.
 */
export class SweptMap<K, V> {
  private readonly entries = new Map<K, V>();
  private sweepAt: number;

  constructor(
    private readonly firstSweepAt: number,
    private readonly hasPassed: (value: V, now: number) => boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.sweepAt = firstSweepAt;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.sweepAt && !this.entries.has(key)) this.sweep();
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, value] of this.entries) if (this.hasPassed(value, now)) this.entries.delete(key);
    this.sweepAt = Math.max(this.firstSweepAt, 2 * this.entries.size);
  }
}
