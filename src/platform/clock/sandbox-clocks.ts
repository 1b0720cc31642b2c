import type { Knex } from 'knex';
import { preparedStatement, runPrepared } from '../db/prepared-statement';
import { SweptMap } from '../swept-map';

/**
 * How long a replica trusts the offset it last read for a location, from
 * when that read began. An advance answers only once this long has passed
 * since it committed, so no replica stamps a record behind a reading of the
 * clock that was answered before the record was asked for (docs/guarantees.md).
 */
export const SANDBOX_CLOCK_CACHE_MS = 250;

/** Past this many remembered locations, those whose window has passed are dropped before another is added (swept-map.ts). */
const SWEEP_AT = 10_000;

/**
 * Up to this many advanced clocks are read together, once a window, for
 * every location: a location never advanced then costs no read of its own.
 * No more than a page of rows, as any read on a request's way.
 * A sandbox with more reads each location's offset alone, and tries the
 * whole set again only after EVERY_ADVANCED_RETRY_MS.
 */
export const EVERY_ADVANCED_AT_MOST = 100;
const EVERY_ADVANCED_RETRY_MS = 60_000;

const OFFSET_OF = preparedStatement('sandbox_clock_offset', 'select offset_ms from sandbox_clocks where location_id = ?');
const ADVANCE = preparedStatement(
  'advance_sandbox_clock',
  `insert into sandbox_clocks (location_id, offset_ms) values (?, ?)
   on conflict (location_id) do update set offset_ms = sandbox_clocks.offset_ms + excluded.offset_ms, updated_at = now()
     where sandbox_clocks.offset_ms + excluded.offset_ms <= ?
   returning offset_ms`,
);
const ADVANCED = preparedStatement('advanced_sandbox_clocks', 'select location_id, offset_ms from sandbox_clocks where offset_ms > 0 order by location_id');
const EVERY_ADVANCED_UP_TO = preparedStatement(
  'every_advanced_sandbox_clock_up_to',
  'select location_id, offset_ms from sandbox_clocks where offset_ms > 0 order by location_id limit ?',
);

/** Every advanced clock's offset, read by one statement that began at `readAt`; a location not in it was not advanced then. */
interface EveryAdvanced {
  readonly readAt: number;
  readonly offsets: ReadonlyMap<string, number>;
}

/**
 * The sandbox clocks of the locations, kept in PostgreSQL so that every
 * replica reads one offset per location; each replica remembers an offset
 * for `cacheMs` (SANDBOX_CLOCK_CACHE_MS), so a request costs no lookup but
 * the first of that window, and an advance made here is seen here at once.
 * While there are at most EVERY_ADVANCED_AT_MOST advanced clocks, that first
 * lookup reads them all, once a window for every location at once: a
 * location never advanced (nearly all of them) costs no read of its own.
 * Another replica's advance answers only once every remembered offset it
 * could have made stale has expired (`advance`): before, a replica stamped
 * records with the offset it had read up to a second earlier, behind an
 * advance already answered.
 */
export class SandboxClocks {
  private readonly known: SweptMap<string, { offsetMs: number; readAt: number }>;
  private everyAdvanced: EveryAdvanced | undefined;
  private everyAdvancedRead: Promise<void> | undefined;
  /** When the whole set may be read again, after it was found to hold more than `everyAdvancedAtMost`. */
  private everyAdvancedRetryAt = 0;

  constructor(
    private readonly db: Knex,
    private readonly cacheMs = SANDBOX_CLOCK_CACHE_MS,
    sweepAt = SWEEP_AT,
    private readonly everyAdvancedAtMost = EVERY_ADVANCED_AT_MOST,
  ) {
    this.known = new SweptMap(sweepAt, ({ readAt }, now) => now - readAt >= cacheMs);
  }

  /** The offset read for the location within the window, if any: what nearly every request takes, with no promise made. */
  freshOffsetOf(locationId: string): number | undefined {
    const now = Date.now();
    const known = this.known.get(locationId);
    if (known !== undefined && now - known.readAt < this.cacheMs) return known.offsetMs;
    const every = this.everyAdvanced;
    if (every === undefined || now - every.readAt >= this.cacheMs) return undefined;
    // Never back: an advance answered here since the whole set was read stays.
    return Math.max(every.offsets.get(locationId) ?? 0, known?.offsetMs ?? 0);
  }

  /** How far the location's clock is ahead of real time, in milliseconds. */
  async offsetOf(locationId: string): Promise<number> {
    const fresh = this.freshOffsetOf(locationId);
    if (fresh !== undefined) return fresh;
    if (this.everyAdvancedAtMost > 0 && Date.now() >= this.everyAdvancedRetryAt) {
      await this.readEveryAdvanced();
      const read = this.freshOffsetOf(locationId);
      if (read !== undefined) return read;
    }
    const readAt = Date.now();
    const [row] = await runPrepared<{ offset_ms: string | number }>(this.db, OFFSET_OF, [locationId]);
    return this.remember(locationId, row === undefined ? 0 : Number(row.offset_ms), readAt);
  }

  /**
   * Moves the location's clock `seconds` ahead (concurrent advances add up);
   * its new offset, or undefined past `maxOffsetSeconds`. Answers no sooner
   * than `cacheMs` after the move committed: an offset any replica read
   * before it is then stale, and the next request there reads the new one.
   */
  async advance(locationId: string, seconds: number, maxOffsetSeconds: number, meanwhile: (offsetMs: number) => Promise<void>): Promise<number | undefined> {
    const [row] = await runPrepared<{ offset_ms: string | number }>(this.db, ADVANCE, [locationId, seconds * 1000, maxOffsetSeconds * 1000]);
    if (row === undefined) return undefined;
    const committedAt = Date.now();
    const offsetMs = this.remember(locationId, Number(row.offset_ms), committedAt);
    await meanwhile(offsetMs);
    const wait = this.cacheMs - (Date.now() - committedAt);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return offsetMs;
  }

  /** Every location whose clock is ahead of real time, with its offset (the periodic rules run on each). */
  async advanced(): Promise<Array<{ locationId: string; offsetMs: number }>> {
    const readAt = Date.now();
    const rows = await runPrepared<{ location_id: string; offset_ms: string | number }>(this.db, ADVANCED, []);
    return rows.map((row) => ({ locationId: row.location_id, offsetMs: this.remember(row.location_id, Number(row.offset_ms), readAt) }));
  }

  /**
   * Reads every advanced clock, if there are at most `everyAdvancedAtMost`;
   * the requests that find the set stale meanwhile wait for the same read.
   * Past the most, the set is dropped and each location read alone until
   * the retry.
   */
  private readEveryAdvanced(): Promise<void> {
    this.everyAdvancedRead ??= (async () => {
      const readAt = Date.now();
      const rows = await runPrepared<{ location_id: string; offset_ms: string | number }>(this.db, EVERY_ADVANCED_UP_TO, [this.everyAdvancedAtMost + 1]);
      if (rows.length > this.everyAdvancedAtMost) {
        this.everyAdvanced = undefined;
        this.everyAdvancedRetryAt = readAt + EVERY_ADVANCED_RETRY_MS;
        return;
      }
      this.everyAdvanced = { readAt, offsets: new Map(rows.map((row) => [row.location_id, Number(row.offset_ms)])) };
    })().finally(() => {
      this.everyAdvancedRead = undefined;
    });
    return this.everyAdvancedRead;
  }

  /**
   * Keeps an offset read by a statement that began at `readAt`: its window
   * runs from then, since the value may be that old. Every location a
   * process has seen would stay otherwise (a sandbox with many locations, or
   * the bench's thousands of new ones): past SWEEP_AT, the locations whose
   * window has passed go, as their next request reads again anyway. A read
   * racing an advance whose entry went meanwhile began before that advance
   * committed, and is remembered with a window that has already passed.
   */
  private remember(locationId: string, offsetMs: number, readAt: number): number {
    const known = this.known.get(locationId);
    // Never back: a slower read racing a later advance keeps the larger offset, and does not make it look newer.
    if (known !== undefined && known.offsetMs > offsetMs) return known.offsetMs;
    this.known.set(locationId, { offsetMs, readAt });
    return offsetMs;
  }

  /** How many locations' offsets are remembered. */
  get remembered(): number {
    return this.known.size;
  }
}
