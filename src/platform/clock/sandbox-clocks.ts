import type { Knex } from 'knex';
import { preparedStatement, runPrepared } from '../db/prepared-statement';

/** How long a replica trusts the offset it last read for a location: another replica's advance is seen within this. */
const OFFSET_FRESH_MS = 1_000;

const OFFSET_OF = preparedStatement('sandbox_clock_offset', 'select offset_ms from sandbox_clocks where location_id = ?');
const ADVANCE = preparedStatement(
  'advance_sandbox_clock',
  `insert into sandbox_clocks (location_id, offset_ms) values (?, ?)
   on conflict (location_id) do update set offset_ms = sandbox_clocks.offset_ms + excluded.offset_ms, updated_at = now()
     where sandbox_clocks.offset_ms + excluded.offset_ms <= ?
   returning offset_ms`,
);
const ADVANCED = preparedStatement('advanced_sandbox_clocks', 'select location_id, offset_ms from sandbox_clocks where offset_ms > 0 order by location_id');

/**
 * The sandbox clocks of the locations, kept in PostgreSQL so that every
 * replica reads one offset per location; each replica remembers an offset
 * for a second (OFFSET_FRESH_MS), so a request costs no lookup but the first
 * of that second, and an advance made here is seen here at once.
 */
export class SandboxClocks {
  private readonly known = new Map<string, { offsetMs: number; readAt: number }>();

  constructor(private readonly db: Knex) {}

  /** The offset read for the location less than a second ago, if any: what nearly every request takes, with no promise made. */
  freshOffsetOf(locationId: string): number | undefined {
    const known = this.known.get(locationId);
    return known !== undefined && Date.now() - known.readAt < OFFSET_FRESH_MS ? known.offsetMs : undefined;
  }

  /** How far the location's clock is ahead of real time, in milliseconds. */
  async offsetOf(locationId: string): Promise<number> {
    const fresh = this.freshOffsetOf(locationId);
    if (fresh !== undefined) return fresh;
    const [row] = await runPrepared<{ offset_ms: string | number }>(this.db, OFFSET_OF, [locationId]);
    return this.remember(locationId, row === undefined ? 0 : Number(row.offset_ms));
  }

  /** Moves the location's clock `seconds` ahead (concurrent advances add up); its new offset, or undefined past `maxOffsetSeconds`. */
  async advance(locationId: string, seconds: number, maxOffsetSeconds: number): Promise<number | undefined> {
    const [row] = await runPrepared<{ offset_ms: string | number }>(this.db, ADVANCE, [locationId, seconds * 1000, maxOffsetSeconds * 1000]);
    return row === undefined ? undefined : this.remember(locationId, Number(row.offset_ms));
  }

  /** Every location whose clock is ahead of real time, with its offset (the periodic rules run on each). */
  async advanced(): Promise<Array<{ locationId: string; offsetMs: number }>> {
    const rows = await runPrepared<{ location_id: string; offset_ms: string | number }>(this.db, ADVANCED, []);
    return rows.map((row) => ({ locationId: row.location_id, offsetMs: this.remember(row.location_id, Number(row.offset_ms)) }));
  }

  private remember(locationId: string, offsetMs: number): number {
    const known = this.known.get(locationId);
    // Never back: a slower read racing a later advance keeps the larger offset.
    const kept = Math.max(offsetMs, known?.offsetMs ?? 0);
    this.known.set(locationId, { offsetMs: kept, readAt: Date.now() });
    return kept;
  }
}
