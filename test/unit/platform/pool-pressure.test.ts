import knexFactory from 'knex';
import { poolIsBusy } from '../../../src/platform/db/pool-pressure';

/** Housekeeping yields to requests: the pool is busy while a request waits for a connection or all are in use. */
describe('poolIsBusy', () => {
  it('is false for an idle pool, true while every connection is held or a request waits, and false again after', async () => {
    // A pool of two connections that are never opened: `acquireConnection` needs no server for a stub client.
    const knex = knexFactory({ client: 'pg', connection: {}, pool: { min: 0, max: 2 } });
    const pool = knex.client.pool as { acquire(): { promise: Promise<unknown> }; release(resource: unknown): void };
    const created: unknown[] = [];
    (knex.client as { acquireRawConnection(): Promise<unknown> }).acquireRawConnection = async () => {
      const connection = { readyForQuery: true, id: created.length };
      created.push(connection);
      return connection;
    };
    expect(poolIsBusy(knex)).toBe(false);
    const first = await pool.acquire().promise;
    expect(poolIsBusy(knex)).toBe(false);
    const second = await pool.acquire().promise;
    expect(poolIsBusy(knex)).toBe(true);
    const waiting = pool.acquire().promise;
    expect(poolIsBusy(knex)).toBe(true);
    pool.release(first);
    pool.release(await waiting);
    pool.release(second);
    expect(poolIsBusy(knex)).toBe(false);
    await knex.destroy().catch(() => undefined);
  });
});
