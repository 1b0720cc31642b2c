import knexFactory, { type Knex } from 'knex';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../../../src/platform/db/prepared-statement';
import { inClock } from '../../../src/platform/clock/location-clock';
import { runSweep, sweepStatement } from '../../../src/platform/db/sweep-statement';
import { pgDriver, withSqlDriver } from '../../../src/platform/db/sql-driver';
import { openTestDatabase } from '../../support/test-database';

/** What runPrepared hands the driver: the statement's name, unless the pool sits behind PgBouncer (DB_POOLER=pgbouncer). */
const STATEMENT = preparedStatement('unit_named_or_not', 'select ? as answer');

/** A pg Knex whose connections are stubs that record what the driver sends them. */
function stubbedKnex(namedStatements: boolean) {
  const knex = knexFactory(withSqlDriver(pgDriver({ namedStatements }), { client: 'pg', connection: {} }));
  const sent: unknown[] = [];
  const connection = {
    query: async (config: unknown) => {
      sent.push(config);
      return { rows: [{ answer: 42 }] };
    },
  };
  Object.assign(knex.client, { acquireConnection: async () => connection, releaseConnection: async () => undefined });
  return { knex, sent };
}

it('names the statement by default, and leaves it unnamed behind PgBouncer', async () => {
  const named = stubbedKnex(true);
  expect(await runPrepared(named.knex, STATEMENT, [42])).toEqual([{ answer: 42 }]);
  expect(named.sent).toEqual([{ name: 'unit_named_or_not', text: 'select $1 as answer', values: [42] }]);

  const pooled = stubbedKnex(false);
  await runPrepared(pooled.knex, STATEMENT, [42]);
  expect(pooled.sent).toEqual([{ text: 'select $1 as answer', values: [42] }]);
});

it('runs in a transaction on the connection it holds, and refuses once it has ended instead of running on a connection back in the pool', async () => {
  const database = await openTestDatabase();
  const COUNT = preparedStatement('unit_in_transaction_count', 'select count(*)::int as count from customers where location_id = ?');
  const INSERT = preparedStatement(
    'unit_in_transaction_insert',
    'insert into customers (location_id, id, created_at, updated_at) values (?, gen_random_uuid(), now(), now()) returning id',
  );
  try {
    let ended: Knex.Transaction | undefined;
    await expect(
      database.knex.transaction(async (trx) => {
        ended = trx;
        await runPrepared(trx, INSERT, ['unit-location']);
        // Inside, the row is there; outside, not yet.
        expect(await runPrepared(trx, COUNT, ['unit-location'])).toEqual([{ count: 1 }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await runPrepared(database.knex, COUNT, ['unit-location'])).toEqual([{ count: 0 }]);
    await expect(runPrepared(ended as Knex.Transaction, INSERT, ['unit-location'])).rejects.toThrow('Transaction query already complete');
    expect(await runPrepared(database.knex, COUNT, ['unit-location'])).toEqual([{ count: 0 }]);
  } finally {
    await database.close();
  }
});

const TEXT_ARRAY = preparedStatement('unit_text_array', 'select ?::text[] as values');

it('sends an array binding as a text array PostgreSQL reads back element for element, quotes, backslashes, commas and braces included', async () => {
  const values = ['REQUIRES_CAPTURE', '%0192f0a4-7c1e-7d3a-9b1e-1c2d3e4f5a6b%', 'a,b', '{x}', 'say "hi"', 'back\\slash', ' padded ', ''];
  const database = await openTestDatabase();
  try {
    expect(await runPrepared(database.knex, TEXT_ARRAY, [values])).toEqual([{ values }]);
  } finally {
    await database.close();
  }
});

describe('a statement with named parameters', () => {
  const NAMED = namedStatement('unit_named_parameters', "select @a::int + @b::int as sum, @a::int as a, '{\"k\":1}'::jsonb ? 'k' as has_key");

  it('binds each name at every place it is used, and keeps a literal ? an operator', async () => {
    expect(NAMED.params).toEqual(['a', 'b', 'a']);
    expect(NAMED.positionalText).toBe("select $1::int + $2::int as sum, $3::int as a, '{\"k\":1}'::jsonb ? 'k' as has_key");
    const { knex, sent } = stubbedKnex(true);
    await runNamed(knex, NAMED, { a: 2, b: 3 });
    expect(sent).toEqual([{ name: 'unit_named_parameters', text: NAMED.positionalText, values: [2, 3, 2] }]);
  });

  it('runs on PostgreSQL (PGlite) with the values in their places, in a transaction too', async () => {
    const database = await openTestDatabase();
    const { knex } = database;
    try {
      expect(await runNamed(knex, NAMED, { a: 2, b: 3 })).toEqual([{ sum: 5, a: 2, has_key: true }]);
      expect(await knex.transaction((trx) => runNamed(trx, NAMED, { b: 40, a: 2 }))).toEqual([{ sum: 42, a: 2, has_key: true }]);
    } finally {
      await database.close();
    }
  });

  it('refuses to run without a value for every name, before anything is sent', async () => {
    const { knex, sent } = stubbedKnex(true);
    expect(() => runNamed(knex, NAMED, { a: 2 })).toThrow('statement unit_named_parameters has no value for @b');
    expect(sent).toEqual([]);
  });
});

describe("a statement on a location's sandbox clock", () => {
  const CLOCKED = namedStatement(
    'unit_on_clock',
    "select @a::int as a, now() as at, '{\"k\":1}'::jsonb ? 'k' as has_key, now() - make_interval(secs => @b) as before",
  );

  it('moves every now() by the offset, bound in its place among the values, and keeps a literal ? an operator', async () => {
    const { knex, sent } = stubbedKnex(true);
    await inClock(86_400_000, () => runNamed(knex, CLOCKED, { a: 1, b: 2 }));
    expect(sent).toEqual([
      {
        name: 'unit_on_clock__on_clock',
        text: "select $1::int as a, (now() + $2::bigint * interval '1 millisecond') as at, '{\"k\":1}'::jsonb ? 'k' as has_key, (now() + $3::bigint * interval '1 millisecond') - make_interval(secs => $4) as before",
        values: [1, 86_400_000, 86_400_000, 2],
      },
    ]);
    // On real time the statement runs as declared.
    await runNamed(knex, CLOCKED, { a: 1, b: 2 });
    expect(sent[1]).toEqual({ name: 'unit_on_clock', text: CLOCKED.positionalText, values: [1, 2] });
  });

  it('moves now() in every kind of statement: one with ? placeholders, and a sweep across locations or at one (its location bound after)', async () => {
    const { knex, sent } = stubbedKnex(true);
    const plain = preparedStatement('unit_on_clock_plain', 'select ? as a where now() > ?');
    await inClock(1000, () => runPrepared(knex, plain, [1, '2026-01-01']));
    expect(sent.at(-1)).toEqual({
      name: 'unit_on_clock_plain__on_clock',
      text: "select $1 as a where (now() + $2::bigint * interval '1 millisecond') > $3",
      values: [1, 1000, '2026-01-01'],
    });
    const sweep = sweepStatement('unit_on_clock_sweep', 'select id from t', 'due_at <= now()', 'due_at');
    await inClock(2000, () => runSweep(knex, sweep, [], 5, 'loc-1'));
    expect(sent.at(-1)).toEqual({
      name: 'unit_on_clock_sweep_at__on_clock',
      text: "select id from t where due_at <= (now() + $1::bigint * interval '1 millisecond') and location_id = $2 order by due_at limit $3",
      values: [2000, 'loc-1', 5],
    });
    // Across locations it runs on real time: the sweep of every location is not inside any location's clock.
    await runSweep(knex, sweep, [], 5);
    expect(sent.at(-1)).toEqual({ name: 'unit_on_clock_sweep', text: 'select id from t where due_at <= now() order by due_at limit $1', values: [5] });
  });

  it('reads the clock on PostgreSQL (PGlite), on the pool and in a transaction', async () => {
    const database = await openTestDatabase();
    const { knex } = database;
    try {
      const day = 86_400_000;
      const [onPool] = await inClock(day, () => runNamed<{ at: Date; has_key: boolean }>(knex, CLOCKED, { a: 1, b: 0 }));
      expect(new Date(onPool?.at as Date).getTime() - Date.now()).toBeGreaterThan(day - 60_000);
      expect(onPool?.has_key).toBe(true);
      const [inTrx] = await inClock(2 * day, () => knex.transaction((trx) => runNamed<{ at: Date }>(trx, CLOCKED, { a: 1, b: 0 })));
      expect(new Date(inTrx?.at as Date).getTime() - Date.now()).toBeGreaterThan(2 * day - 60_000);
      const [real] = await runNamed<{ at: Date }>(knex, CLOCKED, { a: 1, b: 0 });
      expect(Math.abs(new Date(real?.at as Date).getTime() - Date.now())).toBeLessThan(60_000);
    } finally {
      await database.close();
    }
  });
});
