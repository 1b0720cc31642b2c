import pg from 'pg';
import pgUtils from 'pg/lib/utils';
import { copyPlainQueryConfigsBySpread } from '../../../src/platform/db/pg-query-config';

/**
 * The service's driver has node-postgres copy a plain query config by a
 * spread instead of by its property descriptors (src/platform/db/pg-query-config.ts).
 */
const pgCopy = pgUtils.normalizeQueryConfig;
copyPlainQueryConfigsBySpread();

describe("node-postgres's query config", () => {
  it('is still copied by property descriptors in this version of pg, which is why the spread is there', () => {
    // Fails once pg reads the config without copying it (node-postgres#3743): then pg-query-config.ts goes.
    expect(pgCopy.toString()).toMatch(/cloneQueryConfig\(config\)/);
    expect(pgUtils.normalizeQueryConfig).not.toBe(pgCopy);
  });

  it("is what a Query is made of, taken through the module's normalizeQueryConfig at each call", () => {
    const seen: unknown[] = [];
    const installed = pgUtils.normalizeQueryConfig;
    pgUtils.normalizeQueryConfig = (config, values, callback) => {
      seen.push(config);
      return installed(config, values, callback);
    };
    try {
      const config = { name: 'a_statement', text: 'select $1::int as one', values: [1] };
      // Its fields are pg's own, untyped.
      const query = new pg.Query(config) as unknown as typeof config;
      expect(seen).toEqual([config]);
      expect({ name: query.name, text: query.text, values: query.values }).toEqual(config);
    } finally {
      pgUtils.normalizeQueryConfig = installed;
    }
  });

  it("never changes the caller's object, and copies a plain config's own values", () => {
    const config = { name: 'a_statement', text: 'select $1::int as one', values: [1] };
    const copied = pgUtils.normalizeQueryConfig(config);
    expect(copied).not.toBe(config);
    expect(copied).toEqual(config);
    (copied as { values: unknown[] }).values = [2];
    expect(config.values).toEqual([1]);
  });

  it('adds values and a callback given beside a plain config as pg does, leaving the config as it was', () => {
    const plain = { text: 'select $1::int' };
    const callback = () => undefined;
    expect(pgUtils.normalizeQueryConfig(plain, [1], callback)).toEqual({ text: 'select $1::int', values: [1], callback });
    // Knex's pg client passes its callback where the values go.
    expect(pgUtils.normalizeQueryConfig(plain, callback)).toEqual({ text: 'select $1::int', callback });
    expect(pgUtils.normalizeQueryConfig(plain, [2])).toEqual({ text: 'select $1::int', values: [2] });
    expect(plain).toEqual({ text: 'select $1::int' });
    expect(pgUtils.normalizeQueryConfig('select 1', [3])).toEqual({ text: 'select 1', values: [3] });
  });

  it("keeps pg's own copy for a config with a prototype of its own", () => {
    class WithGetter {
      get text(): string {
        return 'select 1';
      }
    }
    const config = new WithGetter();
    // pg's copy keeps the prototype, so the inherited text is still read; a spread would lose it.
    expect(pgUtils.normalizeQueryConfig(config as never).text).toBe('select 1');
    expect(pgUtils.normalizeQueryConfig(config as never, [1]).values).toEqual([1]);
  });
});
