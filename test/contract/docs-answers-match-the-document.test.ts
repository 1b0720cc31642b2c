import { buildOpenApiDocument } from '../../src/docs/openapi-document';
import { documentationFiles, readDoc } from '../support/docs-blocks';

/**
 * The answers README and docs/ show (a `# 201 {…}` comment under a call, a
 * ```json block) are checked against the document the code renders: every
 * field a shown answer names at its top level is a field of one answer's
 * schema, and a shown answer that elides nothing at its top level (no `…`
 * between its fields) shows every field that schema requires and every field
 * of the schema's own example (itself checked against the schema). So an answer
 * that gains a field (`amountRequested`, an ErrorMessage's `link`) fails
 * here until its samples show it, or elide with `…`.
 */
interface Shown {
  file: string;
  line: number;
  text: string;
}

/** A shown answer's fields at its top level, and whether it elides any there. */
function topLevel(text: string): { fields: string[]; elided: boolean } {
  const fields: string[] = [];
  let depth = 0;
  let elided = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (depth === 1 && /^\s*:/.test(text.slice(end + 1))) fields.push(text.slice(index + 1, end));
      index = end;
    } else if (character === '{' || character === '[') depth++;
    else if (character === '}' || character === ']') depth--;
    else if (character === '…' && depth === 1) elided = true;
  }
  return { fields, elided };
}

/** Every answer shown: a comment holding a JSON object (and the comment lines that continue it), and every ```json block. */
function shownAnswers(): Shown[] {
  const shown: Shown[] = [];
  for (const file of documentationFiles()) {
    const lines = readDoc(file).split('\n');
    let fence: string | undefined;
    let json: Shown | undefined;
    lines.forEach((line, index) => {
      if (line.startsWith('```')) {
        if (fence === undefined) {
          fence = line.slice(3);
          if (fence === 'json') json = { file, line: index + 1, text: '' };
        } else {
          if (json !== undefined) shown.push(json);
          fence = undefined;
          json = undefined;
        }
        return;
      }
      if (json !== undefined) json.text += `${line}\n`;
      if (fence !== 'sh') return;
      const start = /(?:^|\s)# (?:\d{3} )?(\{.*)$/.exec(line);
      if (start?.[1] !== undefined) shown.push({ file, line: index + 1, text: start[1] });
      else if (/^#\s{2,}\S/.test(line) && shown.at(-1)?.file === file && shown.at(-1)?.line === index) {
        const previous = shown.at(-1) as Shown;
        previous.text += line.replace(/^#\s+/, '');
        previous.line = index + 1;
      }
    });
  }
  return shown;
}

interface SchemaObject {
  properties?: Record<string, unknown>;
  required?: string[];
  example?: unknown;
}

const document = buildOpenApiDocument();

/** The schemas a whole answer (or a webhook's body) has: those a media type names or holds inline, not those only nested in another. */
function answerSchemas(): Array<[string, SchemaObject]> {
  const named = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  const found = new Map<string, SchemaObject>();
  const visit = (node: unknown, where: string, underMedia: boolean): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (underMedia && key === 'schema' && typeof value === 'object' && value !== null) {
        type Choice = { $ref?: string };
        const schema = value as SchemaObject & Choice & { allOf?: Choice[]; anyOf?: Choice[]; oneOf?: Choice[] };
        // One schema, a narrowed one (allOf, a webhook's), or either of several (anyOf: the login's two forms).
        const references = [schema.$ref, schema.allOf?.[0]?.$ref, ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map((choice) => choice.$ref)];
        for (const reference of references.filter((name): name is string => name !== undefined)) {
          const name = reference.split('/').pop() as string;
          found.set(name, named[name] as SchemaObject);
        }
        if (schema.properties !== undefined) found.set(`${where}/schema`, schema);
      }
      visit(value, `${where}/${key}`, key === 'content' || (underMedia && key !== 'schema'));
    }
  };
  visit({ paths: document.paths, responses: document.components?.responses, webhooks: document.webhooks }, '', false);
  return [...found].filter(([, schema]) => schema?.properties !== undefined);
}

const schemas = answerSchemas();

/** The schema the shown fields belong to: the one holding all of them with the fewest fields besides. */
function schemaOf(fields: readonly string[]): [string, SchemaObject] | undefined {
  const holding = schemas.filter(([, schema]) => fields.every((field) => field in (schema.properties ?? {})));
  const extra = ([, schema]: [string, SchemaObject]) => Object.keys(schema.properties ?? {}).length;
  return holding.sort((a, b) => extra(a) - extra(b))[0];
}

const answers = shownAnswers();

it('finds the answers the docs show', () => {
  expect(answers.length).toBeGreaterThan(20);
  expect(answers.map(({ file }) => file)).toEqual(expect.arrayContaining(['docs/checkout.md', 'docs/errors.md', 'docs/endpoints.md']));
});

it.each(answers.map((answer) => [`${answer.file}:${answer.line}`, answer] as const))('%s shows an answer of the document', (_where, answer) => {
  const { fields, elided } = topLevel(answer.text);
  if (fields.length === 0) return expect(answer.text).toMatch(/^\{\s*…?\s*\}?/);
  const found = schemaOf(fields);
  expect({ fields, schema: found?.[0] ?? 'none holds them all' }).toEqual({ fields, schema: expect.not.stringMatching(/^none/) });
  if (elided || found === undefined) return;
  // What a whole answer shows: the fields its schema requires, and those its own example (checked against it) shows.
  const shownByExample = typeof found[1].example === 'object' && found[1].example !== null ? Object.keys(found[1].example) : [];
  const missing = [...new Set([...(found[1].required ?? []), ...shownByExample])].filter((field) => !fields.includes(field));
  expect({ schema: found[0], missing }).toEqual({ schema: found[0], missing: [] });
});
