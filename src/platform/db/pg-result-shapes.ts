import pg from 'pg';
import Result, { type FieldDescription } from 'pg/lib/result';
import TypeOverrides from 'pg/lib/type-overrides';

interface Shape {
  fields: readonly FieldDescription[];
  parsers: NonNullable<Result['_parsers']>;
  prebuilt: NonNullable<Result['_prebuiltEmptyResultObject']>;
}

/** Keys of shapes kept at most, per set of type parsers: the service's statements have far fewer. */
const MOST_SHAPES = 1000;

/**
 * What each set of type parsers (a connection's, or pg's own) made of each
 * shape of result, by a short key (how many fields, the first's and the
 * last's names) and then field by field: a key of every field's name and
 * type cost as much to build as what it saves.
 */
let shapes = new WeakMap<object, Map<string, Shape[]>>();
let installed = false;

/**
 * node-postgres describes every result again, even a prepared statement's,
 * and builds from the description the field's parsers and an empty row that
 * each row is copied from: an object with a property per column, made as a
 * dictionary and copied, on every run (a read whose row has many columns
 * pays for it most: docs/performance-history.md). The same statement describes the
 * same fields every time, so what pg built for a shape is kept and used
 * again (node-postgres#3753 would do this in pg). Both are only read after
 * they are built. A parser set after a shape was kept would not be in it, so
 * setting any parser forgets every shape. A result without fields keeps pg's
 * own way. Once pg keeps them, this file goes
 * (test/unit/platform/pg-result-shapes.test.ts says when).
 */
export function keepResultShapes(): void {
  if (installed) return;
  installed = true;
  const pgAddFields = Result.prototype.addFields;
  Result.prototype.addFields = function addFields(this: Result, fields: FieldDescription[]): void {
    if (fields.length === 0) {
      pgAddFields.call(this, fields);
      return;
    }
    const types: object = this._types ?? pg.types;
    let kept = shapes.get(types);
    if (kept === undefined) {
      kept = new Map();
      shapes.set(types, kept);
    }
    const key = `${fields.length}\u0000${fields[0]?.name}\u0000${fields[fields.length - 1]?.name}`;
    const alike = kept.get(key) ?? [];
    const shape = alike.find((candidate) => sameFields(candidate.fields, fields));
    if (shape === undefined) {
      pgAddFields.call(this, fields);
      if (kept.size >= MOST_SHAPES) kept.clear();
      // A copy of the fields: the result's own are its caller's.
      const copy = fields.map(({ name, dataTypeID, format }) => ({ name, dataTypeID, format }));
      kept.set(key, [...alike, { fields: copy, parsers: this._parsers ?? [], prebuilt: this._prebuiltEmptyResultObject ?? {} }]);
      return;
    }
    this.fields = fields;
    this._parsers = shape.parsers;
    this._prebuiltEmptyResultObject = shape.prebuilt;
  };
  forgetShapesOnNewParsers(TypeOverrides.prototype);
  forgetShapesOnNewParsers(pg.types);
}

function sameFields(kept: readonly FieldDescription[], described: readonly FieldDescription[]): boolean {
  for (let index = 0; index < described.length; index += 1) {
    const a = kept[index];
    const b = described[index];
    if (a?.name !== b?.name || a?.dataTypeID !== b?.dataTypeID || a?.format !== b?.format) return false;
  }
  return true;
}

function forgetShapesOnNewParsers(target: { setTypeParser: (...args: never[]) => void }): void {
  const set = target.setTypeParser;
  target.setTypeParser = function setTypeParser(this: unknown, ...args: never[]): void {
    shapes = new WeakMap();
    set.apply(this, args);
  };
}
