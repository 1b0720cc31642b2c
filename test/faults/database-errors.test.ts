import { createServer, type Socket } from 'node:net';
import { Client } from 'pg';
import { classifyDatabaseError } from '../../src/platform/db/database-errors';
import { openTestDatabase, type TestDatabase } from '../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
  await db.knex.raw('create table classify_probe (id int primary key, name varchar(3), parent int references classify_probe (id))');
  await db.knex.raw('insert into classify_probe (id) values (1)');
});
afterAll(() => db.close());

/** The error PostgreSQL itself raises for a statement. */
async function errorOf(sql: string): Promise<unknown> {
  try {
    await db.knex.raw(sql);
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${sql} to fail`);
}

describe('classifyDatabaseError on real PostgreSQL errors', () => {
  it.each([
    ['invalid text for a type', "select 'nope'::uuid", 'VALIDATION_FAILED'],
    ['a value too long', "insert into classify_probe (id, name) values (2, 'long')", 'VALIDATION_FAILED'],
    ['a unique violation', 'insert into classify_probe (id) values (1)', 'CONFLICT'],
    ['a foreign-key violation', 'insert into classify_probe (id, parent) values (3, 99)', 'CONFLICT'],
  ])('maps %s to %s', async (_case, sql, expected) => {
    expect(classifyDatabaseError(await errorOf(sql))).toBe(expected);
  });

  it('leaves an unexpected fault (a missing table) unmapped, so it becomes a 500', async () => {
    expect(classifyDatabaseError(await errorOf('select * from no_such_table'))).toBeUndefined();
  });

  it('maps connection failures and pool time-outs to SERVICE_UNAVAILABLE', () => {
    expect(classifyDatabaseError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe('SERVICE_UNAVAILABLE');
    expect(classifyDatabaseError(Object.assign(new Error('canceling statement'), { code: '57014' }))).toBe('SERVICE_UNAVAILABLE');
    expect(classifyDatabaseError(Object.assign(new Error('x'), { code: '08006' }))).toBe('SERVICE_UNAVAILABLE');
    expect(classifyDatabaseError(Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }))).toBe('SERVICE_UNAVAILABLE');
    expect(classifyDatabaseError(new TypeError('boom'))).toBeUndefined();
    expect(classifyDatabaseError('string')).toBeUndefined();
  });

  it("maps pg's own connect timeout (a server that accepts but never starts the session) to SERVICE_UNAVAILABLE", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', connectionTimeoutMillis: 200 });
    const error = await client.connect().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    for (const socket of sockets) socket.destroy();
    silent.close();
    expect((error as Error).message).toBe('timeout expired');
    expect(classifyDatabaseError(error)).toBe('SERVICE_UNAVAILABLE');
    // Only that message whole: an unrelated error that mentions the words stays a 500.
    expect(classifyDatabaseError(new Error('lease timeout expired in the payment processor'))).toBeUndefined();
  });
});
