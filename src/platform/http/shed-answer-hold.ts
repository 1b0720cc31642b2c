import { performance } from 'node:perf_hooks';
import { RETRY_AFTER_SECONDS } from './error-handler';

/** When a shed answer is sent: now, or later for a connection that did not wait as Retry-After asked. */
export interface ShedAnswerTiming {
  /** The clock, in ms (performance.now by default). */
  now?: () => number;
  /** Runs `send` after `ms` (setTimeout by default). */
  schedule?: (send: () => void, ms: number) => void;
}

/** The longest hold: what Retry-After asked for. */
const LONGEST_HOLD_MS = RETRY_AFTER_SECONDS * 1000;

/** A connection's last 503: when it was answered, and how many in a row came sooner than Retry-After asked. */
interface LastShed {
  answeredAt: number;
  early: number;
}

/**
 * Sends a shed request's 503 at once, unless the same connection asks again
 * less than Retry-After after its last 503 was answered: then after a hold
 * of `holdMs`, doubled for each further early ask in a row, up to
 * Retry-After itself (docs/deployment.md, "Load shedding", has the steps).
 *
 * A client that honours Retry-After never waits for the hold. One that asks
 * again at once (a load generator, a retry loop without back-off) would
 * otherwise get its 503 in microseconds and ask again, thousands of times a
 * second per connection, and at several times the connections the process
 * sustains the 503s took much of its core while the requests it accepted
 * waited behind them. The first hold is short, so a balancer that sends
 * another client's request on a connection just shed meets little of it;
 * a connection that keeps asking early is brought to about one 503 a
 * second, what Retry-After asked (the measurements: docs/performance-history.md).
 * Keyed by the socket, not the client: an HTTP/1.1 connection has one
 * request in flight, so a connection answered 503 that asks again at once
 * is the one not waiting.
 */
export function shedAnswerHold(holdMs: number, timing: ShedAnswerTiming = {}): (socket: object, send: () => void) => void {
  const now = timing.now ?? (() => performance.now());
  const schedule = timing.schedule ?? ((send, ms) => void setTimeout(send, ms));
  const lastShed = new WeakMap<object, LastShed>();
  const answer = (socket: object, send: () => void, early: number): void => {
    lastShed.set(socket, { answeredAt: now(), early });
    send();
  };
  return (socket, send) => {
    const last = lastShed.get(socket);
    const early = holdMs > 0 && last !== undefined && now() - last.answeredAt < LONGEST_HOLD_MS ? last.early + 1 : 0;
    if (early === 0) answer(socket, send, 0);
    else schedule(() => answer(socket, send, early), Math.min(holdMs * 2 ** (early - 1), LONGEST_HOLD_MS));
  };
}
