import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The one clock of the location a piece of work acts for: real time plus
 * that location's sandbox clock offset (docs/cards-on-file.md, The sandbox
 * clock). A request, or a rule run for one location, runs inside `inClock`;
 * everything it writes or compares (`clockNow()` in code, `now()` in its
 * statements, see prepared-statement.ts) then reads that time. Outside any
 * (the sandbox processor off, a location never advanced, a sweep across
 * locations) it is real time and costs one AsyncLocalStorage read.
 */
const clock = new AsyncLocalStorage<{ offsetMs: number }>();

/** How far the current location's clock is ahead of real time, in milliseconds: 0 unless advanced. */
export function clockOffsetMs(): number {
  return clock.getStore()?.offsetMs ?? 0;
}

/** Now, on the current location's clock. */
export function clockNow(): Date {
  return new Date(Date.now() + clockOffsetMs());
}

/** Runs `work` on a clock `offsetMs` ahead of real time; a zero offset runs it on real time, with nothing stored. */
export function inClock<T>(offsetMs: number, work: () => T): T {
  return offsetMs === 0 && clock.getStore() === undefined ? work() : clock.run({ offsetMs }, work);
}
