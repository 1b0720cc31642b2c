import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * The schema is ready to be distributed by location (Citus, docs/deployment.md's
 * "Past one database"): every table that holds a location's data has a
 * primary key, unique indexes and foreign keys that lead with `location_id`,
 * so each can be `create_distributed_table(…, 'location_id')` and co-located
 * unchanged. The only tables without it are the service-wide ones docs/deployment.md
 * names. Read from the catalog of the migrated database, so a new table or
 * key that breaks the rule fails here the day it is written.
 */
const SERVICE_WIDE_TABLES = ['knex_migrations', 'knex_migrations_lock', 'rate_limits', 'secret_keys_in_use'];

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

async function rows<Row>(sql: string): Promise<Row[]> {
  return ((await db.knex.raw(sql)) as { rows: Row[] }).rows;
}

/** The tables of the schema, and whether each has a location_id column. */
async function tables(): Promise<Array<{ table: string; hasLocation: boolean }>> {
  return rows(`
    select c.relname as "table",
           exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'location_id' and not a.attisdropped) as "hasLocation"
      from pg_class c
     where c.relkind in ('r', 'p') and c.relnamespace = current_schema()::regnamespace
     order by 1`);
}

it('names as service-wide exactly the tables without location_id', async () => {
  const withoutLocation = (await tables()).filter(({ hasLocation }) => !hasLocation).map(({ table }) => table);
  expect(withoutLocation.sort()).toEqual([...SERVICE_WIDE_TABLES].sort());
});

it("gives every location's table a primary key that leads with location_id", async () => {
  const keys = await rows<{ table: string; first: string | null }>(`
    select c.relname as "table",
           (select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
             where i.indrelid = c.oid and i.indisprimary) as "first"
      from pg_class c
     where c.relkind in ('r', 'p') and c.relnamespace = current_schema()::regnamespace`);
  const faults = keys.filter(({ table, first }) => !SERVICE_WIDE_TABLES.includes(table) && first !== 'location_id');
  expect(faults).toEqual([]);
  // The catalog query finds what it looks for: the service-wide tables have keys that do not lead with it.
  expect(keys.find(({ table }) => table === 'rate_limits')?.first).toBe('key');
});

it('leads every unique index and every foreign key, on both sides, with location_id', async () => {
  const uniques = await rows<{ index: string; first: string }>(`
    select i.indexrelid::regclass::text as "index", a.attname as "first"
      from pg_index i
      join pg_class c on c.oid = i.indrelid
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where c.relnamespace = current_schema()::regnamespace and i.indisunique and c.relname <> all (array['${SERVICE_WIDE_TABLES.join("','")}'])`);
  expect(uniques.length).toBeGreaterThan(10);
  expect(uniques.filter(({ first }) => first !== 'location_id')).toEqual([]);

  const foreignKeys = await rows<{ key: string; referencing: string; referenced: string }>(`
    select conname as "key",
           (select attname from pg_attribute where attrelid = conrelid and attnum = conkey[1]) as "referencing",
           (select attname from pg_attribute where attrelid = confrelid and attnum = confkey[1]) as "referenced"
      from pg_constraint
     where contype = 'f' and connamespace = current_schema()::regnamespace`);
  expect(foreignKeys.length).toBeGreaterThanOrEqual(6);
  expect(foreignKeys.filter(({ referencing, referenced }) => referencing !== 'location_id' || referenced !== 'location_id')).toEqual([]);
});
