import type { z } from 'zod';

type Inner = { _zod: { def: { type: string; innerType?: Inner; shape?: Record<string, Inner> } } };

/** The object schema's own keys at `path` inside `schema`, through optional, nullable and default wrappers. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: Inner | undefined = schema as unknown as Inner;
  const unwrap = () => {
    while (current?._zod.def.innerType !== undefined) current = current._zod.def.innerType;
  };
  unwrap();
  for (const segment of path) {
    current = current?._zod.def.shape?.[String(segment)];
    unwrap();
  }
  return Object.keys(current?._zod.def.shape ?? {});
}

const fold = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

/**
 * What to tell a caller that sent a field the request does not have: unknown
 * fields are refused (as Stripe does), since a misspelt optional field would
 * otherwise be dropped without a word (`externalReferenceID` creating a
 * customer with no reference). A known field spelt with other case or
 * separators is suggested.
 */
export function unknownFieldMessage(schema: z.ZodType, path: readonly PropertyKey[], key: string): string {
  const meant = keysAt(schema, path).find((known) => fold(known) === fold(key));
  return meant === undefined ? 'Unknown field: this request has no such field.' : `Unknown field: did you mean ${meant}? Field names are case-sensitive.`;
}
