import { SweptMap } from '../../../src/platform/swept-map';

/** Entries are the time their window ends; the clock is moved by hand. */
function sweptMap(firstSweepAt: number) {
  let now = 0;
  let checked = 0;
  const map = new SweptMap<string, number>(
    firstSweepAt,
    (endsAt, at) => {
      checked += 1;
      return endsAt <= at;
    },
    () => now,
  );
  return { map, checked: () => checked, moveTo: (at: number) => (now = at) };
}

describe('SweptMap', () => {
  it('drops the entries whose window has passed once it is full, and keeps those still in theirs', () => {
    const { map, moveTo } = sweptMap(4);
    map.set('a', 10);
    map.set('b', 10);
    map.set('c', 30);
    map.set('d', 30);
    moveTo(20);
    map.set('e', 40);
    expect(map.size).toBe(3);
    expect([map.get('a'), map.get('b'), map.get('c'), map.get('e')]).toEqual([undefined, undefined, 30, 40]);
  });

  it('does not sweep for a key it holds already, nor below the mark', () => {
    const { map, checked, moveTo } = sweptMap(3);
    map.set('a', 10);
    map.set('b', 10);
    map.set('c', 10);
    moveTo(20);
    map.set('c', 30);
    expect(checked()).toBe(0);
    expect(map.size).toBe(3);
  });

  it('scans entries still in their windows a bounded number of times, however many keys come', () => {
    const { map, checked } = sweptMap(100);
    const keys = 100_000;
    // Every window still open: no sweep drops anything.
    for (let i = 0; i < keys; i += 1) map.set(`key-${i}`, Number.MAX_SAFE_INTEGER);
    expect(map.size).toBe(keys);
    // Each sweep scans what the adds since the last one doubled: under two checks per key in all (a fixed mark: about 5 × 10^9).
    expect(checked()).toBeLessThan(2 * keys);
  });
});
