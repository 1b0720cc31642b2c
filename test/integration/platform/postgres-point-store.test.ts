import { postgresPointStore } from '../../../src/platform/rate-limit/postgres-point-store';
import { postgresRateLimiter } from '../../../src/platform/rate-limit/postgres-rate-limiter';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

const keysOf = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

/** Statements sent to the database while `work` runs. */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const listener = (query: { sql: string }) => sent.push(query.sql);
  db.knex.on('query', listener);
  try {
    await work();
  } finally {
    db.knex.off('query', listener);
  }
  return sent;
}

describe('the rate limit store in PostgreSQL', () => {
  it('takes a lease of each of fifty keys in one statement, each counted on its own', async () => {
    const store = postgresPointStore(db.knex, { keyPrefix: 'one-statement', budget: 100, windowSeconds: 60 });
    const keys = keysOf('key', 50);
    let taken: Awaited<ReturnType<typeof store.take>> = [];
    const sent = await statementsDuring(async () => (taken = await store.take(keys, 10)));
    expect(sent).toHaveLength(1);
    expect(taken).toHaveLength(50);
    for (const result of taken) {
      expect(result).toMatchObject({ granted: 10, storeRemaining: 90, exhausted: false });
      expect(result.msLeft).toBeGreaterThan(59_000);
      expect(result.msLeft).toBeLessThanOrEqual(60_000);
    }
    const rows = await db.knex('rate_limits').whereLike('key', 'one-statement:%').orderBy('key');
    expect(rows.map((row: { key: string }) => row.key)).toEqual(keys.map((key) => `one-statement:${key}`).sort());
    expect(new Set(rows.map((row: { points: number }) => row.points))).toEqual(new Set([10]));
  });

  it('never grants more than a budget to replicas taking the same keys in other orders at once, and never deadlocks', async () => {
    const store = postgresPointStore(db.knex, { keyPrefix: 'racing', budget: 100, windowSeconds: 60 });
    const keys = keysOf('key', 10);
    // Sixty takes of 30 points of each key, each with the keys in an order of its own: 1,800 asked for a budget of 100.
    const takes = Array.from({ length: 60 }, (_, take) => {
      const order = [...keys].sort((a, b) => ((a.charCodeAt(a.length - 1) * (take + 3)) % 11) - ((b.charCodeAt(b.length - 1) * (take + 3)) % 11));
      return store.take(order, 30).then((taken) => order.map((key, index) => ({ key, granted: taken[index]?.granted ?? 0 })));
    });
    const grants = (await Promise.all(takes)).flat();
    for (const key of keys) {
      expect(grants.filter((grant) => grant.key === key).reduce((sum, grant) => sum + grant.granted, 0)).toBe(100);
    }
  });

  it('goes on with the count rate-limiter-flexible kept for a key, and refuses past the budget', async () => {
    const limiter = postgresRateLimiter(db.knex, { keyPrefix: 'shared', points: 20, durationSeconds: 60 });
    await limiter.consume('key', 5);
    const store = postgresPointStore(db.knex, { keyPrefix: 'shared', budget: 20, windowSeconds: 60 });
    expect(await store.take(['key'], 10)).toEqual([expect.objectContaining({ granted: 10, storeRemaining: 5, exhausted: false })]);
    expect(await store.take(['key'], 10)).toEqual([expect.objectContaining({ granted: 5, storeRemaining: 0, exhausted: true })]);
    expect(await store.take(['key'], 10)).toEqual([expect.objectContaining({ granted: 0, storeRemaining: 0, exhausted: true })]);
  });

  it("starts a key's count again once its window has ended", async () => {
    const store = postgresPointStore(db.knex, { keyPrefix: 'ended', budget: 20, windowSeconds: 60 });
    await store.take(['key'], 10);
    await store.take(['key'], 10);
    await db
      .knex('rate_limits')
      .where({ key: 'ended:key' })
      .update({ expire: Date.now() - 1 });
    const [taken] = await store.take(['key'], 10);
    expect(taken).toMatchObject({ granted: 10, storeRemaining: 10, exhausted: false });
    expect(taken?.msLeft).toBeGreaterThan(59_000);
  });
});
