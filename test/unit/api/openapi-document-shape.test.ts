import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { buildOpenApiDocument } from '../../../src/docs/openapi-document';

/**
 * What third-party tools read from the document (client generators, mock
 * servers, validation proxies, linters): headers on every answer, real
 * integer bounds, no recursion, examples. Built from the code, as served.
 */
interface Answer {
  $ref?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { examples?: Record<string, { $ref?: string }> }>;
}
const document = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, Answer> }>>;
  components: {
    schemas: Record<string, unknown>;
    responses: Record<string, Answer>;
    examples: Record<string, { value: { status: number; messageKey: string } }>;
  };
};

/** An answer as declared: once in components.responses when it is referred to. */
const declared = (answer: Answer): Answer =>
  answer.$ref === undefined ? answer : (document.components.responses[answer.$ref.split('/').pop() as string] as Answer);

const answers = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) =>
    Object.entries(operation.responses).map(([status, response]) => ({
      name: `${method.toUpperCase()} ${path} ${status}`,
      path,
      status: Number(status),
      response: declared(response),
    })),
  ),
);

describe('the OpenAPI document', () => {
  it('declares X-Request-Id on every answer of every path', () => {
    const without = answers.filter(({ response }) => response.headers?.['X-Request-Id'] === undefined).map(({ name }) => name);
    expect(without).toEqual([]);
  });

  it('declares RateLimit and RateLimit-Policy on every answer of every /v1 operation', () => {
    const without = answers
      .filter(({ path }) => path.startsWith('/v1/'))
      .filter(({ response }) => response.headers?.RateLimit === undefined || response.headers['RateLimit-Policy'] === undefined)
      .map(({ name }) => name);
    expect(without).toEqual([]);
  });

  it('gives no integer the bounds of its storage type instead of its own', () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain('-2147483648');
    expect(text).not.toContain('9007199254740991');
  });

  it('has no recursive schema: ErrorMessage.errors holds entries without errors of their own', () => {
    const schemas = document.components.schemas as Record<string, { properties: Record<string, { items?: { $ref?: string } }> }>;
    expect(schemas.ErrorMessage?.properties.errors?.items?.$ref).toBe('#/components/schemas/NestedErrorMessage');
    expect(schemas.NestedErrorMessage?.properties.errors).toBeUndefined();
  });

  it("shows each error status's own answers as its examples: one per catalog entry it can carry, of that status", () => {
    const wrong = answers
      .filter(({ status }) => status >= 400)
      .flatMap(({ name, status, response }) => {
        // The catalog's answers (the login's OAuthError examples, inline, are its own).
        const examples = Object.entries(response.content?.['application/json']?.examples ?? {}).filter(([, example]) => example.$ref !== undefined);
        if (examples.length === 0) return [`${name}: no examples`];
        return examples
          .map(([key, example]) => ({ key, value: document.components.examples[(example.$ref ?? '').split('/').pop() as string]?.value }))
          .filter(({ key, value }) => value?.status !== status || value.messageKey !== key)
          .map(({ key }) => `${name}: ${key}`);
      });
    expect(wrong).toEqual([]);
  });

  it('writes each answer without a body that operations share once, in components.responses', () => {
    const inline = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        Object.entries(operation.responses)
          .filter(([, response]) => response.$ref === undefined && response.content === undefined)
          .map(([status, response]) => ({ at: `${method.toUpperCase()} ${path} ${status}`, written: JSON.stringify(response) })),
      ),
    );
    const twice = inline.filter(({ written }, index) => inline.findIndex((other) => other.written === written) !== index).map(({ at }) => at);
    expect(twice).toEqual([]);
    expect(Object.keys(document.components.responses)).toContain('NotModified');
  });

  // It was 820 kB with every header, parameter, error answer and example written inline; 248 kB once each was declared
  // once (issue 38, 37 operations). As operations are added the bound is held as a ratio: the committed document is at
  // most a third of the same document with every reference outside components.schemas written out where it is used.
  it('is at most a third of itself with its shared headers, parameters, answers and examples written inline', () => {
    const committed = readFileSync(path.resolve(__dirname, '../../../openapi/openapi.yaml'), 'utf8');
    const parsed = parse(committed) as Record<string, unknown>;
    const inline = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(inline);
      if (value === null || typeof value !== 'object') return value;
      const ref = (value as { $ref?: unknown }).$ref;
      if (typeof ref === 'string' && !ref.startsWith('#/components/schemas/')) {
        return inline(
          ref
            .slice(2)
            .split('/')
            .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], parsed),
        );
      }
      return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, inline(child)]));
    };
    const written = stringify({ ...parsed, paths: inline(parsed.paths), webhooks: inline(parsed.webhooks) });
    expect(committed.length).toBeLessThan(written.length / 3);
  });
});
