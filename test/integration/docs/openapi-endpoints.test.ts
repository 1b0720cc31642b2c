import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { parse } from 'yaml';
import { buildOpenApiDocument } from '../../../src/docs/openapi-document';
import { startTestApp, type TestApp } from '../../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('GET /openapi.json and /openapi.yaml', () => {
  it('serves the document the zod schemas generate, without a token', async () => {
    const response = await request(t.app).get('/openapi.json').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('serves the same document as YAML', async () => {
    const response = await request(t.app)
      .get('/openapi.yaml')
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => done(null, text));
      })
      .expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parse(response.body as string)).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });
});

describe('GET /docs', () => {
  it('redirects to the page with a trailing slash, so its relative assets resolve', async () => {
    const response = await request(t.app).get('/docs').expect(301);
    expect(response.headers.location).toBe('/docs/');
  });

  it('serves the reference page with a policy that lets it load only its own files', async () => {
    const response = await request(t.app).get('/docs/').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('swagger-ui-bundle.js');
    const policy = response.headers['content-security-policy'] as string;
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toMatch(/https?:/);
  });

  it('serves Swagger UI from the npm package, and an initializer that points at the document with samples, with the validator off', async () => {
    await request(t.app)
      .get('/docs/swagger-ui-bundle.js')
      .expect(200)
      .expect('content-type', /javascript/);
    const initializer = await request(t.app).get('/docs/docs-initializer.js').expect(200);
    expect(initializer.text).toContain('"/docs/reference.json"');
    expect(initializer.text).toContain('validatorUrl: null');
  });

  it('shows the page the document with a request sample in every operation, and tools the document without them', async () => {
    const shown = (await request(t.app).get('/docs/reference.json').expect(200)).body as { paths: Record<string, Record<string, { description?: string }>> };
    const served = (await request(t.app).get('/openapi.json').expect(200)).body as typeof shown;
    const operations = Object.entries(shown.paths).flatMap(([route, item]) =>
      Object.entries(item).map(([method, operation]) => ({ route, method, operation })),
    );
    expect(operations.length).toBeGreaterThan(40);
    for (const { route, method, operation } of operations) {
      expect({ route, method, sample: operation.description?.includes(`curl -X ${method.toUpperCase()} "$BASE`) }).toEqual({ route, method, sample: true });
      expect(served.paths[route]?.[method]?.description ?? '').not.toContain('**Request sample**');
    }
    const card = shown.paths['/v1/customers/{id}/payment-methods/{paymentMethodId}']?.patch?.description ?? '';
    expect(card).toContain('curl -X PATCH "$BASE/v1/customers/$CUSTOMER_ID/payment-methods/$PAYMENT_METHOD_ID"');
    expect(card).toContain('-H "Platform-Restaurant-External-ID: $LOCATION"');
    expect(card).toContain("client.PATCH('/v1/customers/{id}/payment-methods/{paymentMethodId}', {");
    expect(card).toContain('params: { header: locationHeaders(location), path: { id: customerId, paymentMethodId } },');
  });

  it('answers 404 ErrorMessage for a file of the package it does not serve', async () => {
    const response = await request(t.app).get('/docs/index.html').expect(404);
    expect(response.body).toMatchObject({ code: 2005, messageKey: 'ROUTE_NOT_FOUND' });
    await request(t.app).get('/docs/package.json').expect(404);
  });
});

describe('npm run openapi -- --check', () => {
  it('finds the committed openapi.yaml and client types identical to a fresh generation', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/openapi-generate.ts', '--check'], {
      cwd: `${__dirname}/../../..`,
    });
    expect(stdout).toContain('up to date');
  }, 60_000);
});
