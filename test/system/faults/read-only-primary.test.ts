import { Client } from 'pg';
import { openDatabase } from '../../../src/platform/db/database';
import { preparedStatement, runPrepared } from '../../../src/platform/db/prepared-statement';
import { freshPostgresDatabase, type FreshDatabase } from '../../support/process/fresh-postgres-database';

/**
 * A server that turns read-only under the pool (what a demoted primary is to
 * the connections it keeps): the write that meets `25006` is refused, the
 * next connection looks for a writable host among DATABASE_URL's, and the
 * pool replaces the connections made before (their configuration expired). Here the two "hosts" are one server
 * listed twice, one made read-only for the service's role; the formation in
 * test/system/process/failover.test.ts shows the real thing.
 */
let database: FreshDatabase;
beforeAll(async () => {
  database = await freshPostgresDatabase();
});
afterAll(() => database.drop());

const WRITE = preparedStatement('system_read_only_write', 'insert into written (at) values (now()) returning 1 as one');
const READ_ONLY_SESSION = preparedStatement('system_read_only_session', 'set default_transaction_read_only = on');

it('replaces the connection a read-only refusal came on, and writes again on a fresh one', async () => {
  const admin = new Client({ connectionString: database.url });
  await admin.connect();
  await admin.query('create table written (at timestamptz)');
  await admin.end();
  const url = new URL(database.url);
  const multiHost = `postgres://${url.username}@${url.host},${url.host}${url.pathname}?target_session_attrs=read-write`;
  const { knex } = openDatabase({ databaseUrl: multiHost, poolMax: 1, acquireTimeoutMs: 5000, statementTimeoutMs: 5000 });
  try {
    expect(await runPrepared(knex, WRITE, [])).toEqual([{ one: 1 }]);
    // The pool's one connection turns read-only, as a demoted primary's would.
    await runPrepared(knex, READ_ONLY_SESSION, []);
    await expect(runPrepared(knex, WRITE, [])).rejects.toMatchObject({ code: '25006' });
    // The next write gets a new connection (the read-only one was replaced), writable again.
    expect(await runPrepared(knex, WRITE, [])).toEqual([{ one: 1 }]);
  } finally {
    await knex.destroy();
  }
});
