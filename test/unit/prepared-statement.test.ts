import knexFactory from 'knex';
import { preparedStatement, runPrepared } from '../../src/platform/db/prepared-statement';

/** What runPrepared hands the driver: the statement's name, unless the pool sits behind PgBouncer (DB_POOLER=pgbouncer). */
const STATEMENT = preparedStatement('unit_named_or_not', 'select ? as answer');

function stubbedKnex(namedStatements: boolean | undefined) {
  const knex = knexFactory({ client: 'pg', connection: {}, ...(namedStatements === undefined ? {} : { userParams: { namedStatements } }) });
  const sent: Array<{ sql: string; options: unknown }> = [];
  Object.assign(knex.client, {
    acquireConnection: async () => ({}),
    releaseConnection: async () => undefined,
    _query: async (_connection: unknown, query: { sql: string; options: unknown }) => {
      sent.push({ sql: query.sql, options: query.options });
      return { response: { rows: [{ answer: 42 }] } };
    },
  });
  return { knex, sent };
}

it('names the statement by default, and leaves it unnamed behind PgBouncer', async () => {
  const named = stubbedKnex(undefined);
  expect(await runPrepared(named.knex, STATEMENT, [42])).toEqual([{ answer: 42 }]);
  expect(named.sent).toEqual([{ sql: 'select $1 as answer', options: { name: 'unit_named_or_not' } }]);

  const pooled = stubbedKnex(false);
  await runPrepared(pooled.knex, STATEMENT, [42]);
  expect(pooled.sent).toEqual([{ sql: 'select $1 as answer', options: {} }]);
});
