import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ModuleDescriptor } from '../../../src/api/module';
import { MODULES } from '../../../src/modules';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * A feature's SQL touches its own tables (each module's `tables`), but for
 * the crossings its module declares with the reason (`crossings`): issue 53,
 * item 2. Read from each feature's source files: a statement naming another
 * feature's table with no declared crossing fails here. Every table of the
 * migrated database is someone's: a feature's, or one of the layers below
 * the features named here.
 */
const ROOT = path.resolve(__dirname, '../../../src');
/** The tables of the layers below the features: the change log, idempotency, the platform, the sandbox processor, Knex. */
const BELOW_FEATURES = [
  'events',
  'event_outbox',
  'idempotency_keys',
  'rate_limits',
  'sandbox_clocks',
  'sandbox_processor_operations',
  'secret_keys_in_use',
  'knex_migrations',
  'knex_migrations_lock',
];
const features = (MODULES as readonly ModuleDescriptor[]).filter((module) => module.layer === 'feature');
const owned = features.flatMap((module) => module.tables ?? []);

/** The tables a source text's statements name (after from, join, into, update), comments left out. */
function tablesNamed(source: string, known: ReadonlySet<string>): Set<string> {
  const code = source
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
    .join('\n');
  const named = new Set<string>();
  for (const match of code.matchAll(/\b(?:from|join|into|update)\s+([a-z_][a-z0-9_]*)\b/g)) if (known.has(match[1] as string)) named.add(match[1] as string);
  return named;
}

/** The tables a feature's files name that it neither keeps nor declares crossing into. */
function undeclared(module: ModuleDescriptor, sources: readonly string[], known: ReadonlySet<string>): string[] {
  const allowed = new Set([...(module.tables ?? []), ...(module.crossings ?? []).map((crossing) => crossing.table)]);
  return [...new Set(sources.flatMap((source) => [...tablesNamed(source, known)]))].filter((table) => !allowed.has(table)).sort();
}

function sourcesOf(folder: string): string[] {
  const directory = path.join(ROOT, folder);
  return readdirSync(directory)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(path.join(directory, file), 'utf8'));
}

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

it('gives every table of the database to one feature or to a layer below the features', async () => {
  const tables = (await db
    .knex('pg_tables')
    .where({ schemaname: db.knex.raw('current_schema()') })
    .pluck('tablename')) as string[];
  expect([...owned, ...BELOW_FEATURES].sort()).toEqual([...tables].sort());
  expect(new Set(owned).size).toBe(owned.length);
});

it("keeps each feature's SQL on its own tables, but for the crossings its module declares with a reason", () => {
  const known = new Set(owned);
  const found = Object.fromEntries(features.map((module) => [module.folder, undeclared(module, sourcesOf(module.folder), known)]));
  expect(found).toEqual(Object.fromEntries(features.map((module) => [module.folder, []])));
  for (const module of features) {
    const named = new Set(sourcesOf(module.folder).flatMap((source) => [...tablesNamed(source, known)]));
    for (const crossing of module.crossings ?? []) {
      // Declared where a statement of the feature makes it, and nowhere else: the list stays true.
      expect({ folder: module.folder, table: crossing.table, made: named.has(crossing.table) }).toEqual({
        folder: module.folder,
        table: crossing.table,
        made: true,
      });
      expect(known.has(crossing.table) && !(module.tables ?? []).includes(crossing.table)).toBe(true);
      expect(crossing.why.length).toBeGreaterThan(20);
    }
  }
});

it('fails on an undeclared crossing, and names the table', () => {
  const refunds = features.find((module) => module.folder === 'refunds') as ModuleDescriptor;
  const statement = 'const X = preparedStatement(`x`, `select id from payment_methods where location_id = ?`);';
  expect(undeclared(refunds, [statement], new Set(owned))).toEqual(['payment_methods']);
  // A declared one passes, and a comment naming a table is no statement.
  expect(undeclared(refunds, ['`update payment_intents set amount_refunded = 0`', '// read from customers'], new Set(owned))).toEqual([]);
});
