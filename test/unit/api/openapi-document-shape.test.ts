import { buildOpenApiDocument } from '../../../src/docs/openapi-document';

/**
 * What third-party tools read from the document (client generators, mock
 * servers, validation proxies, linters): headers on every answer, real
 * integer bounds, no recursion, examples. Built from the code, as served.
 */
const document = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  components: { schemas: Record<string, unknown> };
};

const answers = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) =>
    Object.entries(operation.responses).map(([status, response]) => ({ name: `${method.toUpperCase()} ${path} ${status}`, path, response })),
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
});
