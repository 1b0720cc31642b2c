import type { Knex } from 'knex';
import { preparedStatement, runPrepared } from '../db/prepared-statement';
import { takenOf, type PointStore, type Taken } from './point-store';

/**
 * A lease of points for each key, in one statement for all of them, on
 * rate-limiter-flexible's table and arithmetic (its `consume` upsert, the
 * login throttle's): a key's count starts again with the lease once its
 * window has ended, and grows by it otherwise. The keys go in one order, so
 * replicas taking overlapping keys lock their rows in the same order and
 * never deadlock.
 */
const TAKE_POINTS = preparedStatement(
  'take_rate_limit_points',
  `insert into rate_limits as r (key, points, expire)
   select key, ?::int, ?::bigint from unnest(?::text[]) as key order by key collate "C"
   on conflict (key) do update
      set points = case when r.expire <= ? then excluded.points else r.points + excluded.points end,
          expire = case when r.expire <= ? then excluded.expire else r.expire end
   returning key, points, expire`,
);

/** A budget of `budget` points per key and window, counted in PostgreSQL, the keys under `keyPrefix:` as the library names them. */
export function postgresPointStore(db: Knex, options: { keyPrefix: string; budget: number; windowSeconds: number }): PointStore {
  const windowMs = options.windowSeconds * 1000;
  return {
    windowMs,
    async take(storeKeys: readonly string[], lease: number): Promise<Taken[]> {
      const now = Date.now();
      const keys = storeKeys.map((key) => `${options.keyPrefix}:${key}`);
      const rows = await runPrepared<{ key: string; points: number; expire: string }>(db, TAKE_POINTS, [lease, now + windowMs, keys, now, now]);
      const counted = new Map(rows.map((row) => [row.key, row]));
      return keys.map((key) => {
        const row = counted.get(key);
        if (row === undefined) throw new Error('the rate limit store did not count a key it was given');
        return takenOf(row.points, Number(row.expire) - now, options.budget, lease);
      });
    },
  };
}
