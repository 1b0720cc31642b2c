import Result, { type FieldDescription } from 'pg/lib/result';
import TypeOverrides from 'pg/lib/type-overrides';
import { keepResultShapes } from '../../../src/platform/db/pg-result-shapes';

/**
 * The service's driver has node-postgres use again what it built for a shape
 * of result (src/platform/db/pg-result-shapes.ts).
 */
const pgAddFields = Result.prototype.addFields;
keepResultShapes();

const INT4 = 23;
const TEXT = 25;
const TIMESTAMPTZ = 1184;
const JSONB = 3802;

/** A result's fields as pg's parser makes them, new objects for each run. */
const described = (...types: Array<[string, number]>): FieldDescription[] => types.map(([name, dataTypeID]) => ({ name, dataTypeID, format: 'text' }));

function resultOf(types: TypeOverrides, fields: FieldDescription[], addFields = Result.prototype.addFields): Result {
  const result = new Result(undefined, types);
  addFields.call(result, fields);
  return result;
}

describe("node-postgres's result shapes", () => {
  it('are still built again for every result in this version of pg, which is why they are kept', () => {
    // Fails once pg keeps them itself (node-postgres#3753): then pg-result-shapes.ts goes.
    expect(pgAddFields.toString()).toMatch(/Object\.create\(null\)/);
    expect(Result.prototype.addFields).not.toBe(pgAddFields);
  });

  it('parse rows as pg does, a later result of the shape with what the first built', () => {
    const types = new TypeOverrides();
    const shape = (): FieldDescription[] => described(['id', INT4], ['at', TIMESTAMPTZ], ['data', JSONB], ['note', TEXT]);
    const row = ['7', '2026-11-29 15:00:00.123+00', '{"a": 1}', null];
    const first = resultOf(types, shape());
    const later = resultOf(types, shape());
    expect(later._parsers).toBe(first._parsers);
    expect(later.fields).toEqual(shape());
    expect(later.parseRow(row)).toEqual(resultOf(types, shape(), pgAddFields).parseRow(row));
    expect(later.parseRow(row)).toEqual({ id: 7, at: new Date('2026-11-29T15:00:00.123Z'), data: { a: 1 }, note: null });
    // Each row is a copy of the empty one, never the empty row itself.
    expect(later.parseRow(row)).not.toBe(later.parseRow(row));
    expect(later._prebuiltEmptyResultObject).toEqual({ id: null, at: null, data: null, note: null });
  });

  it('keeps shapes that differ in a type, an order or a field between the first and the last apart', () => {
    const types = new TypeOverrides();
    expect(resultOf(types, described(['n', INT4])).parseRow(['7'])).toEqual({ n: 7 });
    expect(resultOf(types, described(['n', TEXT])).parseRow(['7'])).toEqual({ n: '7' });
    expect(resultOf(types, described(['a', INT4], ['b', TEXT])).parseRow(['1', '2'])).toEqual({ a: 1, b: '2' });
    expect(resultOf(types, described(['b', TEXT], ['a', INT4])).parseRow(['2', '1'])).toEqual({ b: '2', a: 1 });
    expect(resultOf(types, described(['a', INT4], ['x', INT4], ['b', TEXT])).parseRow(['1', '2', '3'])).toEqual({ a: 1, x: 2, b: '3' });
    expect(resultOf(types, described(['a', INT4], ['y', TEXT], ['b', TEXT])).parseRow(['1', '2', '3'])).toEqual({ a: 1, y: '2', b: '3' });
  });

  it('uses a parser set after a shape was kept', () => {
    const types = new TypeOverrides();
    expect(resultOf(types, described(['n', INT4])).parseRow(['7'])).toEqual({ n: 7 });
    types.setTypeParser(INT4, 'text', (value) => `int ${value}`);
    expect(resultOf(types, described(['n', INT4])).parseRow(['7'])).toEqual({ n: 'int 7' });
    // Another connection's parsers are its own.
    expect(resultOf(new TypeOverrides(), described(['n', INT4])).parseRow(['7'])).toEqual({ n: 7 });
  });

  it('leaves a result without fields as pg makes it', () => {
    const result = resultOf(new TypeOverrides(), []);
    expect(result.fields).toEqual([]);
    expect(result._prebuiltEmptyResultObject).toEqual({});
  });
});
