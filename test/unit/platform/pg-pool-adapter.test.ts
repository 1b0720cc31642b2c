import knexFactory from 'knex';
import { knexAsPgPool } from '../../../src/platform/db/pg-pool-adapter';
import { pgDriver, withSqlDriver } from '../../../src/platform/db/sql-driver';
import { openTestDatabase } from '../../support/test-database';

/** rate-limiter-flexible's statements, as it sends them to a pg Pool: reached through the service's pool with the driver's own call. */
it('sends a library statement as given: named ones by name, `$n` bound by number in any order, unnamed ones planned each run', async () => {
  const knex = knexFactory(withSqlDriver(pgDriver({ namedStatements: true }), { client: 'pg', connection: {} }));
  const sent: unknown[] = [];
  const connection = {
    query: async (config: unknown) => {
      sent.push(config);
      return { rows: [{ points: 1 }], rowCount: 1 };
    },
  };
  Object.assign(knex.client, { acquireConnection: async () => connection, releaseConnection: async () => undefined });
  const pool = knexAsPgPool(knex);
  try {
    expect(await pool.query({ name: 'rate_limits:rlflx-upsert', text: 'select $2, $1', values: ['a', 'b'] })).toEqual({ rows: [{ points: 1 }], rowCount: 1 });
    await pool.query({ text: 'delete from rate_limits where expire < $1', values: [0] });
  } finally {
    await knex.destroy();
  }
  expect(sent).toEqual([
    { name: 'rate_limits:rlflx-upsert', text: 'select $2, $1', values: ['a', 'b'] },
    { text: 'delete from rate_limits where expire < $1', values: [0] },
  ]);
});

it("counts a DELETE's rows, which the login throttle's reset reads, on the test database", async () => {
  const database = await openTestDatabase();
  try {
    const pool = knexAsPgPool(database.knex);
    const expire = Date.now() + 60_000;
    await pool.query({ name: 'unit:adapter-insert', text: 'insert into rate_limits values ($1, $2, $3)', values: ['unit-adapter-key', 1, expire] });
    expect(await pool.query({ text: 'delete from rate_limits where key = $1', values: ['unit-adapter-key'] })).toEqual({ rows: [], rowCount: 1 });
    expect(await pool.query({ text: 'delete from rate_limits where key = $1', values: ['unit-adapter-key'] })).toEqual({ rows: [], rowCount: 0 });
  } finally {
    await database.close();
  }
});
