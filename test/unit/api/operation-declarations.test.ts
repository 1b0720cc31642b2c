import { z } from 'zod';
import { API_OPERATIONS } from '../../../src/api-operations';
import { expressRoute, operationsOf, pathParameters } from '../../../src/api/operation';
import { SCOPE } from '../../../src/auth/scopes';
import { StreamedFile } from '../../../src/platform/http/streamed-file';

const operation = operationsOf<object>();
const handle = async () => ({ status: 200 as const, body: {} });
const responses = { 200: { description: 'ok', schema: z.object({}) } };

describe('operation declarations', () => {
  it('give every operation a unique operationId and a unique method and path', () => {
    const ids = API_OPERATIONS.map(({ operationId }) => operationId);
    const routes = API_OPERATIONS.map(({ method, path }) => `${method} ${path}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it.each(API_OPERATIONS.filter(({ body }) => body !== undefined).map((declared) => [declared.operationId, declared] as const))(
    '%s declares a request example its own body schema accepts',
    (_id, declared) => {
      const example: unknown = declared.body?.schema.meta()?.example;
      expect(example).toBeDefined();
      expect(declared.body?.schema.safeParse(example).success).toBe(true);
    },
  );

  it.each(API_OPERATIONS.filter(({ query }) => query !== undefined).map((declared) => [declared.operationId, declared] as const))(
    '%s declares an example for every query parameter, which its schema accepts',
    (_id, declared) => {
      const examples = Object.fromEntries(Object.entries(declared.query?.shape ?? {}).map(([name, field]) => [name, (field as z.ZodType).meta()?.example]));
      expect(declared.query?.safeParse(examples).success).toBe(true);
    },
  );

  it('turns an OpenAPI path template into the Express route', () => {
    expect(expressRoute('/v1/customers/{id}/payment-methods/defaults/{contextName}')).toBe('/v1/customers/:id/payment-methods/defaults/:contextName');
    expect(pathParameters('/v1/customers/{id}/payment-methods/{paymentMethodId}')).toEqual(['id', 'paymentMethodId']);
  });

  it('refuses, when the module loads, a path whose parameters the params schema does not declare', () => {
    expect(() =>
      operation({
        method: 'get',
        path: '/v1/things/{id}',
        operationId: 'getThing',
        tag: 'Customers',
        summary: 's',
        description: 'd',
        access: { scope: SCOPE.customersRead },
        params: z.object({ thingId: z.string() }),
        responses,
        errors: [],
        handle,
      }),
    ).toThrow('getThing: the path has parameters [id] but params declares [thingId]');
  });

  it('refuses an Idempotency-Key on anything but a POST', () => {
    expect(() =>
      operation({
        method: 'delete',
        path: '/v1/things',
        operationId: 'deleteThings',
        tag: 'Customers',
        summary: 's',
        description: 'd',
        access: { scope: SCOPE.serverWrite },
        idempotent: true,
        responses,
        errors: [],
        handle,
      }),
    ).toThrow('deleteThings: only a POST takes an Idempotency-Key');
  });

  it('refuses a file answer on anything but a GET', () => {
    expect(() =>
      operation({
        method: 'post',
        path: '/v1/things.csv',
        operationId: 'makeThingsFile',
        tag: 'Settlement',
        summary: 's',
        description: 'd',
        access: { scope: SCOPE.reportsRead },
        responses: { 200: { description: 'the file', file: { mediaType: 'text/csv', example: 'a\r\n' } } },
        errors: [],
        handle: async () => ({ status: 200 as const, body: new StreamedFile('text/csv', 'things.csv', (async function* () {})()) }),
      }),
    ).toThrow('makeThingsFile: a file answer is read, never made: only a GET streams one');
  });
});

describe('response examples', () => {
  it.each(
    API_OPERATIONS.flatMap((declared) =>
      Object.entries(declared.responses)
        .filter(([, response]) => response.schema !== undefined)
        .map(([status, response]) => [`${declared.operationId} ${status}`, response.schema as z.ZodType] as const),
    ),
  )('%s declares an example its own schema accepts', (_name, schema) => {
    const example: unknown = schema.meta()?.example;
    expect(example).toBeDefined();
    expect(schema.safeParse(example).success).toBe(true);
  });
});
