import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { API_OPERATIONS } from '../../src/api-operations';
import { expressRoute } from '../../src/api/operation';
import { EVENT_TYPES } from '../../src/change-log/event-types';
import { createCustomer } from '../factories/customers';
import { newLocation } from '../factories/locations';
import { contractDocument } from '../support/contract/openapi-contract';
import { startTestApp, TEST_CORS_ORIGIN, type TestApp } from '../support/test-app';

/**
 * Issue 36, item 9: Prism's validation proxy and Spectral's OWASP rules
 * found the document saying less than the service does: the events `type`
 * filter a free string, every `limit` a bare number, two lists without
 * `maxItems`, the session-secret header without a length, amounts without a
 * format; and a CORS preflight of a server-only POST answered as if a browser
 * might call it. The document now states exactly what the service takes,
 * and CORS follows each operation's declared browser access.
 */
let testApp: TestApp;
let location: string;
let customerId: string;
beforeAll(async () => {
  testApp = await startTestApp();
  location = newLocation();
  customerId = (await createCustomer(testApp, location)).id;
});
afterAll(() => testApp.close());

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  schema: Json;
}

const operations = () =>
  Object.entries(contractDocument().paths).flatMap(([path, item]) =>
    Object.entries(item as unknown as Record<string, Json>)
      .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
/** An operation's parameters as declared: once in components.parameters when it refers to one. */
const parametersOf = (operation: Json) =>
  ((operation.parameters as Array<Parameter | { $ref: string }> | undefined) ?? []).map((parameter) =>
    '$ref' in parameter
      ? ((contractDocument().components.parameters as Record<string, Parameter>)[parameter.$ref.split('/').pop() as string] as Parameter)
      : parameter,
  );
// A sales day's date is any date; every other parameter, an id.
const concrete = (path: string) => path.replace('{businessDate}', '2026-11-27').replace(/\{[^}]+\}/g, customerId);

/** Every schema in the document, wherever it stands, with where. */
function everySchema(node: unknown, where: string, found: Array<{ where: string; schema: Json }> = []): Array<{ where: string; schema: Json }> {
  if (Array.isArray(node)) node.forEach((child, index) => everySchema(child, `${where}[${index}]`, found));
  else if (node !== null && typeof node === 'object') {
    const object = node as Json;
    if (typeof object.type === 'string') found.push({ where, schema: object });
    for (const [key, child] of Object.entries(object)) if (key !== 'example' && key !== 'examples') everySchema(child, `${where}.${key}`, found);
  }
  return found;
}

describe('the document states what the service accepts', () => {
  const typeFilters = () =>
    operations().flatMap(({ path, operation }) =>
      parametersOf(operation)
        .filter((p) => p.name === 'type' && p.in === 'query')
        .map((p) => ({ path, schema: p.schema })),
    );

  it('the events `type` filter is an enum of every type and every `resource.*`, each accepted, and nothing else', async () => {
    const resources = [...new Set(EVENT_TYPES.map((type) => type.split('.')[0]))].map((resource) => `${resource}.*`);
    expect(typeFilters()).toHaveLength(2);
    for (const { path, schema } of typeFilters()) {
      expect([...(schema.enum as string[])].sort()).toEqual([...EVENT_TYPES, ...resources].sort());
      for (const value of schema.enum as string[])
        await request(testApp.app)
          .get(`${concrete(path)}?type=${encodeURIComponent(value)}`)
          .set(testApp.as(location))
          .expect(200);
      const refused = await request(testApp.app)
        .get(`${concrete(path)}?type=payment_method.attach`)
        .set(testApp.as(location))
        .expect(400);
      expect(refused.body.fieldName).toBe('type');
    }
  });

  it('every `limit` is an integer from 1 to 100, and the service takes exactly those', async () => {
    const limits = operations().flatMap(({ path, method, operation }) =>
      parametersOf(operation)
        .filter((p) => p.name === 'limit')
        .map((p) => ({ path, method, schema: p.schema })),
    );
    expect(limits.length).toBeGreaterThanOrEqual(6);
    for (const { path, schema } of limits) {
      expect({ path, type: schema.type, minimum: schema.minimum, maximum: schema.maximum }).toEqual({ path, type: 'integer', minimum: 1, maximum: 100 });
      const url = concrete(path).replace(/\/webhook-endpoints\/[^/]+\//, `/webhook-endpoints/${randomUUID()}/`);
      for (const bad of ['0', '101', '1.5', 'ten']) {
        const refused = await request(testApp.app).get(`${url}?limit=${bad}`).set(testApp.as(location));
        expect({ path, bad, status: refused.status, fieldName: refused.body.fieldName }).toEqual({ path, bad, status: 400, fieldName: 'limit' });
      }
    }
  });

  it('every array in an answer has maxItems, and every integer a format', () => {
    const schemas = everySchema(contractDocument().components, 'components');
    const unbounded = schemas.filter(({ schema }) => schema.type === 'array' && schema.maxItems === undefined).map(({ where }) => where);
    expect(unbounded).toEqual([]);
    const unformatted = schemas.filter(({ schema }) => schema.type === 'integer' && schema.format === undefined).map(({ where }) => where);
    expect(unformatted).toEqual([]);
  });

  it('Platform-Session-Secret has a pattern and a maximum length', () => {
    const headers = operations().flatMap(({ operation }) => parametersOf(operation).filter((p) => p.name === 'Platform-Session-Secret'));
    expect(headers.length).toBeGreaterThan(0);
    for (const { schema } of headers) expect(schema).toMatchObject({ type: 'string', maxLength: expect.any(Number), pattern: expect.any(String) });
  });
});

describe("CORS follows each operation's declared browser access", () => {
  const declared = API_OPERATIONS.map((operation) => ({
    method: operation.method.toUpperCase(),
    path: operation.path,
    route: expressRoute(operation.path),
    browser: operation.access.sessionSecret !== undefined,
  }));

  it.each(declared.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    'a preflight of %s is answered for the configured origin only if a browser may call it',
    async (_name, { method, path, browser }) => {
      const preflight = await request(testApp.app)
        .options(concrete(path))
        .set('Origin', TEST_CORS_ORIGIN)
        .set('Access-Control-Request-Method', method)
        .set('Access-Control-Request-Headers', 'authorization, platform-restaurant-external-id, content-type');
      if (browser) {
        expect(preflight.headers['access-control-allow-origin']).toBe(TEST_CORS_ORIGIN);
        expect(preflight.headers['access-control-allow-methods']).toContain(method);
      } else {
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      }
    },
  );

  it('a server-only call from a browser origin carries no Access-Control-Allow-Origin either', async () => {
    const answer = await request(testApp.app).post('/v1/customers').set(testApp.as(location)).set('Origin', TEST_CORS_ORIGIN).send({});
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});
