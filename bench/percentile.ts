/** The p-th percentile (nearest rank) of `values`; 0 for none. */
export function percentileOf(values: readonly number[], p: number): number {
  return percentileOfSorted(
    [...values].sort((a, b) => a - b),
    p,
  );
}

/** The p-th percentile (nearest rank) of `sorted`, in ascending order; 0 for none. */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
