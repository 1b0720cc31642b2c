/** How often PENDING refunds are asked about: a refund the processor settles is seen settled within this of it. */
export const REFUND_SWEEP_MS = 1_000;
/** A refund its own request is still settling is left to it: only those PENDING at least this long are swept. */
export const LEFT_ALONE_SECONDS = 1;

/**
 * How long the sandbox keeps a refund it answers later pending, for the
 * service to record it SUCCEEDED within SANDBOX_ASYNC_REFUND_SECONDS: the
 * sweep first leaves a refund alone for a second, then asks once a second.
 */
export function sandboxRefundSettlesAfterMs(asyncRefundSeconds: number): number {
  return Math.max(0, asyncRefundSeconds * 1000 - LEFT_ALONE_SECONDS * 1000 - REFUND_SWEEP_MS);
}
