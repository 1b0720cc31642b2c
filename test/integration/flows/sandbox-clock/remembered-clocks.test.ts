import { SandboxClocks } from '../../../../src/platform/clock/sandbox-clocks';
import { newLocation } from '../../../factories/locations';
import { openTestDatabase, type TestDatabase } from '../../../support/test-database';

/**
 * A process remembers each location's clock offset for its window
 * (SandboxClocks); past a number of locations, those whose window has passed
 * are forgotten, so a sandbox with ever more locations does not keep every
 * one it has seen. A forgotten location is read again, and an advance is
 * never lost.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

const WINDOW_MS = 50;
const SWEEP_AT = 4;
const waitOutTheWindow = () => new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 10));

it('forgets the locations whose window has passed once it remembers too many, and keeps those still in theirs', async () => {
  const clocks = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT);
  const old = [newLocation(), newLocation(), newLocation(), newLocation()];
  for (const location of old) expect(await clocks.offsetOf(location)).toBe(0);
  expect(clocks.remembered).toBe(4);
  await waitOutTheWindow();

  const fresh = newLocation();
  await clocks.offsetOf(fresh);
  // The four past their window went before the fifth came in.
  expect(clocks.remembered).toBe(1);
  expect(clocks.freshOffsetOf(fresh)).toBe(0);

  // Below the mark, nothing is swept: passed windows stay until the map is full again.
  const more = [newLocation(), newLocation()];
  for (const location of more) await clocks.offsetOf(location);
  expect(clocks.remembered).toBe(3);
});

it('reads a forgotten location again, and finds an advance made meanwhile by another replica', async () => {
  const clocks = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT);
  const elsewhere = new SandboxClocks(db.knex, WINDOW_MS, SWEEP_AT);
  const location = newLocation();
  expect(await clocks.offsetOf(location)).toBe(0);
  await elsewhere.advance(location, 3600, 10 * 365 * 86_400, async () => undefined);
  for (let i = 0; i < SWEEP_AT; i += 1) await clocks.offsetOf(newLocation());
  expect(clocks.freshOffsetOf(location)).toBeUndefined();
  expect(await clocks.offsetOf(location)).toBe(3_600_000);
});
