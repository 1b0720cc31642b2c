import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { creatingOperations } from '../factories/creating-operations';
import { LOCATION_HEADER, newLocation } from '../factories/locations';
import { contractDocument } from '../support/contract/openapi-contract';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Bad input of every kind the issue lists, answered with a 4xx ErrorMessage
 * that changes nothing. The fields each body is tried on come from the OpenAPI
 * document (itself made from the zod schemas), so a new field is covered
 * without editing this file.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const TABLES = ['customers', 'payment_methods', 'default_payment_methods', 'payment_intents', 'refunds', 'idempotency_keys'];

async function rowCounts(): Promise<Record<string, number>> {
  const entries = await Promise.all(TABLES.map(async (table) => [table, Number((await testApp.db.knex(table).count({ count: '*' }).first())?.count)] as const));
  return Object.fromEntries(entries);
}

function expectRefused(response: request.Response, fieldName?: string): void {
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(response.status).toBeLessThan(500);
  expect(response.body).toMatchObject({ status: response.status, code: expect.any(Number), requestId: expect.any(String) });
  if (fieldName !== undefined) expect(response.body.fieldName).toBe(fieldName);
}

type Json = Record<string, unknown>;
interface Leaf {
  path: string[];
  schema: Json;
}

function resolve(schema: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return (contractDocument().components as { schemas: Record<string, Json> }).schemas[ref.split('/').pop() as string] as Json;
}

/** Every scalar field of a request body schema, by its path. */
function leavesOf(schema: Json, path: string[] = []): Leaf[] {
  const resolved = resolve(schema);
  const variants = (resolved.anyOf as Json[] | undefined)?.filter((variant) => variant.type !== 'null');
  if (variants?.[0] !== undefined) return leavesOf(variants[0], path);
  if (resolved.type === 'object') {
    return Object.entries(resolved.properties as Record<string, Json>).flatMap(([name, child]) => leavesOf(child, [...path, name]));
  }
  return [{ path, schema: resolved }];
}

function requestSchema(template: string): Json {
  const content = (contractDocument().paths[template]?.post as unknown as { requestBody: { content: Record<string, { schema: Json }> } }).requestBody.content;
  return Object.values(content)[0]?.schema as Json;
}

function withValue(body: Json, path: string[], value: unknown): Json {
  const copy = structuredClone(body);
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Json;
  target[path[path.length - 1] as string] = value;
  return copy;
}

const CREATES = creatingOperations(() => testApp);

const BAD_STRINGS: Array<[string, string]> = [
  ['NUL', 'a\u0000b'],
  ['a lone surrogate', 'a\ud800b'],
  ['a control character', 'a\u0007b'],
  ['an escape sequence', '\u001b[31m'],
];
const BAD_NUMBERS: Array<[string, string]> = [
  ['a number as a string', '"100"'],
  ['1e309', '1e309'],
  ['2**63', '9223372036854775808'],
  ['a fraction', '1.5'],
  ['a negative', '-1'],
];

describe('every string field of every create', () => {
  const fields = CREATES.flatMap((create) =>
    leavesOf(requestSchema(create.template))
      .filter((leaf) => leaf.schema.type === 'string')
      .map((leaf) => ({ create, leaf })),
  );

  it('is walked: the document lists them, and each free-text one is bounded', () => {
    expect(new Set(fields.map(({ create }) => create.template)).size).toBeGreaterThan(1);
    const unbounded = fields.filter(
      ({ leaf }) => leaf.schema.enum === undefined && leaf.schema.const === undefined && typeof leaf.schema.maxLength !== 'number',
    );
    expect(unbounded.map(({ create, leaf }) => `${create.template} ${leaf.path.join('.')}`)).toEqual([]);
  });

  it.each(
    fields.flatMap(({ create, leaf }) => BAD_STRINGS.map(([what, value]) => [create.template, leaf.path.join('.'), what, create, leaf.path, value] as const)),
  )('POST %s: %s with %s is refused with 400 naming it, and nothing changes', async (_template, fieldName, _what, create, path, value) => {
    const location = newLocation();
    const { path: url, body } = await create.prepare(location);
    const before = await rowCounts();
    const response = await request(testApp.app)
      .post(url)
      .set(testApp.as(location))
      .send(withValue(body, path, value));
    expectRefused(response, fieldName);
    expect(response.status).toBe(400);
    expect(await rowCounts()).toEqual(before);
  });

  it.each(fields.map(({ create, leaf }) => [create.template, leaf.path.join('.'), create, leaf.path] as const))(
    'POST %s: %s holding a card number is refused (1004), and nothing changes',
    async (_template, _fieldName, create, path) => {
      const location = newLocation();
      const { path: url, body } = await create.prepare(location);
      const before = await rowCounts();
      const response = await request(testApp.app)
        .post(url)
        .set(testApp.as(location))
        .send(withValue(body, path, '4111111111111111'));
      expectRefused(response);
      expect(await rowCounts()).toEqual(before);
      expect(JSON.stringify(response.body)).not.toContain('4111111111111111');
    },
  );

  // A URL's length is filled after a valid start; any other string is all x.
  const filler = (format: unknown) => (length: number) => (format === 'uri' ? `https://hooks.example.com/${'x'.repeat(length - 26)}` : 'x'.repeat(length));
  // Every field with a maximum length whose own pattern (if any) takes such a filling: a pattern that only
  // refuses characters (control characters, format characters) does not keep its field from this test.
  const bounded = fields.filter(({ leaf }) => {
    if (typeof leaf.schema.maxLength !== 'number' || leaf.schema.enum !== undefined) return false;
    return leaf.schema.pattern === undefined || new RegExp(leaf.schema.pattern as string, 'u').test(filler(leaf.schema.format)(leaf.schema.maxLength));
  });
  it.each(
    bounded.map(({ create, leaf }) => [create.template, leaf.path.join('.'), leaf.schema.maxLength as number, create, leaf.path, leaf.schema.format] as const),
  )('POST %s: %s is accepted at its maximum of %i characters and refused one past it', async (_template, fieldName, max, create, path, format) => {
    const filled = filler(format);
    const location = newLocation();
    const { path: url, body } = await create.prepare(location);
    const before = await rowCounts();
    const over = await request(testApp.app)
      .post(url)
      .set(testApp.as(location))
      .send(withValue(body, path, filled(max + 1)));
    expectRefused(over, fieldName);
    expect(await rowCounts()).toEqual(before);
    const atMax = await request(testApp.app)
      .post(url)
      .set(testApp.as(location))
      .send(withValue(body, path, filled(max)));
    expect(atMax.status).toBeLessThan(300);
  });
});

describe('every number field of every create', () => {
  const numberCases = CREATES.flatMap((create) =>
    leavesOf(requestSchema(create.template))
      .filter((leaf) => leaf.schema.type === 'integer')
      .flatMap((leaf) => BAD_NUMBERS.map(([what, raw]) => [create.template, leaf.path.join('.'), what, create, leaf.path, raw] as const)),
  );

  it('is walked: payment intents take numbers', () => {
    expect(numberCases.length).toBeGreaterThanOrEqual(BAD_NUMBERS.length * 2);
  });

  it.each(numberCases)('POST %s: %s as %s is refused with 400 naming it', async (_template, fieldName, _what, create, path, raw) => {
    const location = newLocation();
    const { path: url, body } = await create.prepare(location);
    const before = await rowCounts();
    // Raw JSON: JSON.stringify cannot write 1e309 or 2**63 as sent.
    const json = JSON.stringify(withValue(body, path, '__RAW__')).replace('"__RAW__"', raw);
    const response = await request(testApp.app).post(url).set(testApp.as(location)).set('Content-Type', 'application/json').send(json);
    expectRefused(response, fieldName);
    expect(await rowCounts()).toEqual(before);
  });
});

describe('bodies that are not what a create takes', () => {
  const intentsBody = { amount: 100, currency: 'USD', externalReferenceId: 'o' };
  it.each([
    ['malformed JSON', 'application/json', '{"amount": ', 400],
    ['a top-level array', 'application/json', '[]', 400],
    ['a top-level string', 'application/json', '"text"', 400],
    ['a top-level null', 'application/json', 'null', 400],
    ['an empty body', 'application/json', '', 400],
    ['a wrong Content-Type', 'text/plain', JSON.stringify(intentsBody), 415],
    ['a bogus charset', 'application/json; charset=klingon', JSON.stringify(intentsBody), 415],
    ['a form body', 'application/x-www-form-urlencoded', 'amount=100', 415],
  ])('%s is refused, and nothing changes', async (_case, contentType, raw, status) => {
    const before = await rowCounts();
    const response = await request(testApp.app).post('/v1/payment-intents').set(testApp.as(newLocation())).set('Content-Type', contentType).send(raw);
    expectRefused(response);
    expect(response.status).toBe(status);
    expect(await rowCounts()).toEqual(before);
  });

  it.each(['gzip', 'deflate', 'br'])('a %s-compressed body is refused with 415, not inflated', async (encoding) => {
    const response = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(newLocation()))
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', encoding)
      .send(JSON.stringify(intentsBody));
    expectRefused(response);
    expect(response.status).toBe(415);
  });

  it('a body over the limit is refused with 413', async () => {
    const response = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(newLocation()))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ...intentsBody, externalReferenceId: 'x'.repeat(200 * 1024) }));
    expect(response.status).toBe(413);
    expectRefused(response);
  });

  it.each([
    ['__proto__', '{"__proto__": {"polluted": true}, "externalReferenceId": "p"}'],
    ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}, "externalReferenceId": "p"}'],
  ])('a %s key pollutes nothing', async (_case, raw) => {
    const location = newLocation();
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(location)).set('Content-Type', 'application/json').send(raw);
    // Unknown keys are ignored on customers, so this may be created; what matters is that no prototype changed.
    expect([200, 400]).toContain(response.status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    if (response.status === 200) expect(response.body).not.toHaveProperty('polluted');
  });
});

describe('hostile paths, headers and query strings', () => {
  it.each([
    ['not a UUID', 'abc'],
    ['NUL', '%00'],
    ['a line feed', '%0A'],
    ['over-long', 'a'.repeat(2000)],
    ['a UUID with a NUL after it', `${randomUUID()}%00`],
  ])('a customer id that is %s is a 400 naming id', async (_case, id) => {
    const response = await request(testApp.app).get(`/v1/customers/${id}`).set(testApp.as(newLocation()));
    expectRefused(response, 'id');
    expect(response.status).toBe(400);
  });

  it('a path segment that is not valid UTF-8 once decoded (a lone surrogate) is a 400', async () => {
    // The router fails to decode it before any parameter is named, so no fieldName.
    const response = await request(testApp.app).get('/v1/customers/%ED%A0%80').set(testApp.as(newLocation()));
    expectRefused(response);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/percent-encoded/);
  });

  it('an empty path id reaches no operation (404)', async () => {
    const response = await request(testApp.app).get('/v1/customers//payment-methods').set(testApp.as(newLocation()));
    expectRefused(response);
    expect(response.status).toBe(404);
  });

  it('an upper-case UUID of an unknown customer is a 404, like its lower-case form', async () => {
    const response = await request(testApp.app).get(`/v1/customers/${randomUUID().toUpperCase()}`).set(testApp.as(newLocation()));
    expect(response.status).toBe(404);
    expectRefused(response);
  });

  it('a 2 kB location header is refused with 400', async () => {
    const response = await request(testApp.app)
      .get(`/v1/customers/${randomUUID()}`)
      .set({ ...testApp.adminAuthorization, [LOCATION_HEADER]: 'l'.repeat(2048) });
    expectRefused(response);
    expect(response.body).toMatchObject({ code: 1003, messageKey: 'LOCATION_HEADER_INVALID' });
  });

  it('a duplicated query parameter is refused with 400, not merged', async () => {
    const response = await request(testApp.app).get('/v1/customers?externalReferenceId=a&externalReferenceId=b').set(testApp.as(newLocation()));
    expectRefused(response, 'externalReferenceId');
    expect(response.status).toBe(400);
  });

  it.each([
    ['Authorization', (token: string) => [token, token]],
    ['Platform-Session-Secret', () => ['PI_a_SECRET_b', 'PI_c_SECRET_d']],
    ['X-Request-Id', () => ['one', 'two']],
  ])('a repeated %s header is refused with 400 naming it, whichever value a proxy read', async (header, values) => {
    const location = newLocation();
    const before = await rowCounts();
    const response = await request(testApp.app)
      .post('/v1/customers')
      .set({ ...testApp.adminAuthorization, [LOCATION_HEADER]: location })
      // An array goes out as the header repeated; supertest's types only allow that for Cookie.
      .set(header, values(testApp.adminAuthorization.Authorization as string) as unknown as string)
      .send('{}');
    expectRefused(response, header);
    expect(response.status).toBe(400);
    expect(await rowCounts()).toEqual(before);
  });
});
