/** node-postgres's result and type overrides (lib/result.js, lib/type-overrides.js), which its package exports but does not type: what pg-result-shapes.ts keeps. */
declare module 'pg/lib/result' {
  type Parser = (value: string) => unknown;
  export interface FieldDescription {
    name: string;
    dataTypeID: number;
    format: string;
  }
  class Result {
    constructor(rowMode?: string, types?: unknown);
    fields: FieldDescription[];
    _types: { getTypeParser(oid: number, format?: string): Parser } | undefined;
    _parsers: Parser[] | undefined;
    _prebuiltEmptyResultObject: Record<string, null> | undefined;
    addFields(fields: FieldDescription[]): void;
    parseRow(values: Array<string | null>): Record<string, unknown>;
  }
  export default Result;
}

declare module 'pg/lib/type-overrides' {
  class TypeOverrides {
    constructor(types?: unknown);
    setTypeParser(oid: number, format: string | ((value: string) => unknown), parser?: (value: string) => unknown): void;
    getTypeParser(oid: number, format?: string): (value: string) => unknown;
  }
  export default TypeOverrides;
}
