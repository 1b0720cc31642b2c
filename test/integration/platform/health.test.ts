import { readFileSync } from 'node:fs';
import path from 'node:path';
import knexFactory from 'knex';
import packageJson from '../../../package.json';
import request from 'supertest';
import { Readiness } from '../../../src/platform/lifecycle/readiness';
import { pgDriver, withSqlDriver } from '../../../src/platform/db/sql-driver';
import { freePort } from '../../support/process/free-port';
import { startTestApp, type TestApp } from '../../support/test-app';

describe('GET /health/live and /health/ready', () => {
  let t: TestApp;
  const readiness = new Readiness();
  beforeAll(async () => {
    t = await startTestApp({ readiness });
  });
  afterAll(() => t.close());

  it('answers live and ready without a token or a location header, never cached, with the build’s own version', async () => {
    const live = await request(t.app).get('/health/live').expect(200);
    expect(live.body).toEqual({ status: 'UP', version: packageJson.version });
    expect(live.headers['cache-control']).toBe('no-store');
    const ready = await request(t.app).get('/health/ready').expect(200);
    expect(ready.body).toEqual({ status: 'UP', database: 'UP', version: packageJson.version });
  });

  it('keeps the build’s version apart from the API’s, and CHANGELOG.md records the build’s', async () => {
    const document = (await request(t.app).get('/openapi.json').expect(200)).body as { info: { version: string } };
    expect(document.info.version).toBe('1.1.5');
    expect(packageJson.version).not.toBe(document.info.version);
    expect(readFileSync(path.resolve(__dirname, '../../../CHANGELOG.md'), 'utf8')).toContain(`## ${packageJson.version} `);
  });

  it('turns readiness 503 once a shutdown starts, while liveness stays 200', async () => {
    readiness.startShutdown();
    const ready = await request(t.app).get('/health/ready').expect(503);
    expect(ready.body).toMatchObject({ status: 503, code: 5003, messageKey: 'SERVICE_UNAVAILABLE', message: 'The service is shutting down.' });
    await request(t.app).get('/health/live').expect(200);
  });
});

describe('readiness with an unreachable database', () => {
  let t: TestApp;
  beforeAll(async () => {
    const knex = knexFactory(
      withSqlDriver(pgDriver({ namedStatements: true }), {
        client: 'pg',
        connection: { host: '127.0.0.1', port: await freePort(), user: 'nobody', database: 'nothing', connectionTimeoutMillis: 500 },
        pool: { min: 0, max: 1 },
        acquireConnectionTimeout: 500,
        // The refused connections are the point; knex would print each one.
        log: { warn() {}, error() {}, debug() {}, deprecate() {} },
      }),
    );
    t = await startTestApp({ database: { knex, kind: 'postgres', close: () => knex.destroy() } });
  });
  afterAll(() => t.close());

  it('answers readiness 503 with Retry-After, liveness 200, and API calls 503 rather than 500', async () => {
    const ready = await request(t.app).get('/health/ready').expect(503);
    expect(ready.body).toMatchObject({ status: 503, code: 5003, messageKey: 'SERVICE_UNAVAILABLE', message: 'The database is not reachable.' });
    expect(ready.headers['retry-after']).toBe('5');
    await request(t.app).get('/health/live').expect(200);
    const create = await request(t.app).post('/v1/customers').set(t.as('loc-unreachable')).send({}).expect(503);
    expect(create.body).toMatchObject({ code: 5003, messageKey: 'SERVICE_UNAVAILABLE' });
  });
});
