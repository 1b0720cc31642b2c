import { SandboxClocks } from '../../../../src/platform/clock/sandbox-clocks';
import { newLocation } from '../../../factories/locations';
import { openTestDatabase, type TestDatabase } from '../../../support/test-database';

/**
 * A process remembers each location's clock offset for its window
 * (SandboxClocks); past a number of locations, those whose window has passed
 * are forgotten, so a sandbox with ever more locations does not keep every
 * one it has seen. A forgotten location is read again, and an advance is
 * never lost. While few clocks are advanced, one read of them all serves
 * every location for the window.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

const WINDOW_MS = 50;
const SWEEP_AT = 4;
const TEN_YEARS_S = 10 * 365 * 86_400;
/** Each location read alone, as with more advanced clocks than the whole set's most. */
const ONE_BY_ONE = 0;
/** A window no pause of a busy machine outlasts, for a test that never waits one out. */
const LONG_WINDOW_MS = 60_000;

/** The statements on the sandbox clocks run from here on. */
function clockReads(): { count(): number; stop(): void } {
  let count = 0;
  const listener = (query: { sql: string }) => {
    if (query.sql.includes('from sandbox_clocks')) count += 1;
  };
  db.knex.on('query', listener);
  return { count: () => count, stop: () => db.knex.removeListener('query', listener) };
}

it('forgets the locations whose window has passed once it remembers too many, and keeps those still in theirs', async () => {
  // The process's clock is the test's: the fifth location's window must not pass while a busy machine reads it.
  let nowMs = Date.now();
  const clock = jest.spyOn(Date, 'now').mockImplementation(() => nowMs);
  try {
    const clocks = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT, ONE_BY_ONE);
    const old = [newLocation(), newLocation(), newLocation(), newLocation()];
    for (const location of old) expect(await clocks.offsetOf(location)).toBe(0);
    expect(clocks.remembered).toBe(4);
    nowMs += WINDOW_MS;

    const fresh = newLocation();
    await clocks.offsetOf(fresh);
    // The four past their window went before the fifth came in.
    expect(clocks.remembered).toBe(1);
    expect(clocks.freshOffsetOf(fresh)).toBe(0);

    // Below the mark, nothing is swept: passed windows stay until the map is full again.
    const more = [newLocation(), newLocation()];
    for (const location of more) await clocks.offsetOf(location);
    expect(clocks.remembered).toBe(3);
  } finally {
    clock.mockRestore();
  }
});

it('reads a forgotten location again, and finds an advance made meanwhile by another replica', async () => {
  const clocks = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT, ONE_BY_ONE);
  const elsewhere = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT, ONE_BY_ONE);
  const location = newLocation();
  expect(await clocks.offsetOf(location)).toBe(0);
  await elsewhere.advance(location, 3600, TEN_YEARS_S, async () => undefined);
  for (let i = 0; i < SWEEP_AT; i += 1) await clocks.offsetOf(newLocation());
  expect(clocks.freshOffsetOf(location)).toBeUndefined();
  expect(await clocks.offsetOf(location)).toBe(3_600_000);
});

describe('one read of every advanced clock', () => {
  it('serves every location for its window: locations never advanced cost no read of their own, and remember nothing', async () => {
    const clocks = new SandboxClocks(db.knex, LONG_WINDOW_MS, SWEEP_AT);
    const reads = clockReads();
    try {
      const offsets = await Promise.all(Array.from({ length: 20 }, () => clocks.offsetOf(newLocation())));
      expect(offsets).toEqual(Array.from({ length: 20 }, () => 0));
      expect(reads.count()).toBe(1);
      expect(clocks.remembered).toBe(0);
    } finally {
      reads.stop();
    }
  });

  it('finds an advance made by another replica once the window that read passed, and one made here at once', async () => {
    const clocks = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT);
    const elsewhere = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT);
    const [there, here] = [newLocation(), newLocation()];
    expect(await clocks.offsetOf(there)).toBe(0);
    await elsewhere.advance(there, 60, TEN_YEARS_S, async () => undefined);
    await clocks.advance(here, 120, TEN_YEARS_S, async () => undefined);
    // The advance answered once this replica's reading of the whole set had passed its window.
    expect(clocks.freshOffsetOf(there)).toBeUndefined();
    expect(await clocks.offsetOf(there)).toBe(60_000);
    expect(await clocks.offsetOf(here)).toBe(120_000);
  });

  it('reads each location alone while more clocks are advanced than its most', async () => {
    const most = 2;
    const setUp = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT, ONE_BY_ONE);
    for (let i = 0; i <= most; i += 1) await setUp.advance(newLocation(), 1, TEN_YEARS_S, async () => undefined);
    const clocks = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT, most);
    const reads = clockReads();
    try {
      // The whole set, found too large, then the location alone.
      expect(await clocks.offsetOf(newLocation())).toBe(0);
      expect(reads.count()).toBe(2);
      // Until the retry, only the location.
      expect(await clocks.offsetOf(newLocation())).toBe(0);
      expect(reads.count()).toBe(3);
      expect(clocks.remembered).toBe(2);
    } finally {
      reads.stop();
    }
  });
});
