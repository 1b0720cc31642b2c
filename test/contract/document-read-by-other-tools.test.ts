import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@cfworker/json-schema';
import { parse } from 'yaml';

/**
 * The committed document as other tools read it (issue: under attack, fourth
 * round, item 8). Three operation tags were used but not declared, so
 * Redoc and Swagger UI sorted those operations first with no description;
 * sixteen patterns used Unicode property escapes (`\p{Cf}`), which
 * Spectral's validator and Python's `re` read without the `u` flag as
 * literal letters, so they rejected the document's own examples. Every
 * pattern now names its characters by explicit ranges, and every example
 * is validated here by a second JSON Schema implementation
 * (@cfworker/json-schema; Spectral's `oas3-valid-*-example` rules in
 * `npm run openapi:owasp` are a third).
 */
type Json = Record<string, unknown>;
const document = parse(readFileSync(path.resolve(__dirname, '../../openapi/openapi.yaml'), 'utf8')) as Json;

/** Every object of the document with its JSON pointer. */
function* walk(node: unknown, pointer = ''): Generator<{ node: Json; pointer: string }> {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) yield { node: node as Json, pointer };
  for (const [key, child] of Object.entries(node)) yield* walk(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
}

function at(pointer: string, root: unknown = document): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, key) => (node as Json)[key.replaceAll('~1', '/').replaceAll('~0', '~')], root);
}

/**
 * The document with its examples taken out, for the validator to index:
 * it reads an example's `id` as a schema's (draft 4), and examples are data.
 */
function withoutExamples(node: unknown, underProperties = false): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => withoutExamples(item));
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => underProperties || (key !== 'example' && key !== 'examples'))
      .map(([key, child]) => [key, withoutExamples(child, key === 'properties' && !underProperties)]),
  );
}
const schemas = withoutExamples(document) as Json;

const validators = new Map<string, Validator>();
/** A validator of the schema at `pointer`, whose `$ref`s resolve in the whole document. */
function validatorAt(pointer: string): Validator {
  let validator = validators.get(pointer);
  if (validator === undefined) {
    // The schema as the root, with the components its `$ref`s name.
    validator = new Validator({ ...(at(pointer, schemas) as Json), components: schemas.components } as never, '2020-12', false);
    validators.set(pointer, validator);
  }
  return validator;
}

/** Each example of the document, with the schema it must satisfy. */
function examples(): Array<{ where: string; schemaPointer: string; value: unknown }> {
  const found: Array<{ where: string; schemaPointer: string; value: unknown }> = [];
  for (const { node, pointer } of walk(document)) {
    if (pointer.includes('/example') || pointer.startsWith('/components/examples')) continue;
    if ('schema' in node && typeof node.schema === 'object') {
      // A parameter, header or media type: its example(s) against its schema.
      if ('example' in node) found.push({ where: `${pointer}/example`, schemaPointer: `${pointer}/schema`, value: node.example });
      for (const [name, example] of Object.entries((node.examples ?? {}) as Record<string, Json>)) {
        const resolved = typeof example.$ref === 'string' ? (at(example.$ref.slice(1)) as Json) : example;
        found.push({ where: `${pointer}/examples/${name}`, schemaPointer: `${pointer}/schema`, value: resolved.value });
      }
    } else if ('example' in node && !pointer.endsWith('/properties')) {
      // A schema with an example of its own.
      found.push({ where: `${pointer}/example`, schemaPointer: pointer, value: node.example });
    }
  }
  return found;
}

describe('the committed document, read by other tools', () => {
  it('declares every tag its operations use, each with a description', () => {
    const declared = new Map((document.tags as Array<{ name: string; description?: string }>).map((tag) => [tag.name, tag.description]));
    const used = new Set<string>();
    for (const { node } of walk({ paths: document.paths, webhooks: document.webhooks })) {
      if (Array.isArray(node.tags) && typeof node.operationId === 'string') for (const tag of node.tags as string[]) used.add(tag);
    }
    expect([...used].filter((tag) => !declared.has(tag))).toEqual([]);
    for (const tag of used) expect(declared.get(tag)).toEqual(expect.any(String));
    expect(used.has('Refunds') && used.has('Mandates') && used.has('Sandbox clock')).toBe(true);
  });

  it('writes every pattern so that engines with and without the `u` flag read it alike (no \\p{…}, no \\u{…})', () => {
    const patterns = new Set<string>();
    for (const { node } of walk(document)) if (typeof node.pattern === 'string') patterns.add(node.pattern);
    expect(patterns.size).toBeGreaterThan(10);
    for (const pattern of patterns) {
      expect(pattern).not.toMatch(/\\[pP]\{|\\u\{/);
      const plain = new RegExp(pattern);
      const unicode = new RegExp(pattern, 'u');
      // Every character of the Basic Multilingual Plane but the surrogate halves, inside a string each pattern accepts otherwise.
      for (let code = 0; code <= 0xffff; code += 1) {
        if (code >= 0xd800 && code <= 0xdfff) continue;
        const probe = `a${String.fromCharCode(code)}`;
        if (plain.test(probe) !== unicode.test(probe)) throw new Error(`${pattern} reads U+${code.toString(16)} differently without the u flag`);
      }
    }
  });

  it('holds every example to its schema with a second validator', () => {
    const all = examples();
    expect(all.length).toBeGreaterThan(100);
    const failures = all.flatMap(({ where, schemaPointer, value }) => {
      const result = validatorAt(schemaPointer).validate(value);
      return result.valid ? [] : [`${where}: ${result.errors.map((error) => error.error).join('; ')}`];
    });
    expect(failures).toEqual([]);
  });

  it('finds what it looks for: the old pattern reads a zero-width space differently without the u flag, and the validator refuses what a pattern refuses', () => {
    const old = '^[^\\u0000-\\u001f\\u007f\\p{Cf}]*$';
    expect(new RegExp(old).test('a\u200bb')).not.toBe(new RegExp(old, 'u').test('a\u200bb'));
    const schema = new Validator({ type: 'string', pattern: '^[a-z]*$' }, '2020-12');
    expect(schema.validate('ABC').valid).toBe(false);
  });
});
