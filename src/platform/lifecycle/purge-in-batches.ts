/**
 * Runs `purgeBatch` until it takes fewer than `batchSize` rows, or answers
 * undefined (another replica holds the purge), one transaction a batch so no
 * statement holds many rows locked for long. Between batches it pauses as
 * long as the last one took, so that a purge of millions leaves the API at
 * least half of the database's time. Answers how many rows went; `onBatch`
 * hears of each batch and how long its transaction held its rows (the
 * benchmark's measure, docs/performance.md).
 */
export async function purgeInBatches(
  batchSize: number,
  purgeBatch: (limit: number) => Promise<number | undefined>,
  onBatch: (purged: number, heldMs: number) => void = () => undefined,
): Promise<number> {
  let total = 0;
  for (;;) {
    const started = performance.now();
    const purged = await purgeBatch(batchSize);
    if (purged === undefined) return total;
    const heldMs = performance.now() - started;
    onBatch(purged, heldMs);
    total += purged;
    if (purged < batchSize) return total;
    await new Promise((resolve) => setTimeout(resolve, heldMs));
  }
}
