import { performance } from 'node:perf_hooks';
import { RETRY_AFTER_SECONDS } from './error-handler';

/** When a shed answer is sent: now, or later for a connection that did not wait as Retry-After asked. */
export interface ShedAnswerTiming {
  /** The clock, in ms (performance.now by default). */
  now?: () => number;
  /** Runs `send` after `ms` (setTimeout by default). */
  schedule?: (send: () => void, ms: number) => void;
}

/**
 * Sends a shed request's 503 at once, unless the same connection was shed
 * less than Retry-After ago: then after `holdMs`.
 *
 * A client that honours Retry-After never waits for the hold. One that asks
 * again at once (a load generator, a retry loop without back-off) would
 * otherwise get its 503 in microseconds and ask again, thousands of times a
 * second per connection, and at several times the connections the process
 * sustains the 503s took much of its core while the requests it accepted
 * waited behind them. Held for a tenth of what Retry-After asked, such a
 * connection asks at most 10 times a second, and the accepted requests keep
 * their latency (the measurements: docs/performance.md). Keyed by the socket,
 * not the client: an HTTP/1.1 connection has one request in flight, so a
 * connection answered 503 that asks again at once is the one not waiting.
 */
export function shedAnswerHold(holdMs: number, timing: ShedAnswerTiming = {}): (socket: object, send: () => void) => void {
  const now = timing.now ?? (() => performance.now());
  const schedule = timing.schedule ?? ((send, ms) => void setTimeout(send, ms));
  const lastShedAt = new WeakMap<object, number>();
  return (socket, send) => {
    const at = now();
    const last = lastShedAt.get(socket);
    lastShedAt.set(socket, at);
    if (holdMs > 0 && last !== undefined && at - last < RETRY_AFTER_SECONDS * 1000) schedule(send, holdMs);
    else send();
  };
}
