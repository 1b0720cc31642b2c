import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freshPostgresDatabase, type FreshDatabase } from '../../support/process/fresh-postgres-database';
import { devClientToken, startSourceService, type RunningService } from '../../support/process/service-process';

/**
 * A real service process behind Debian's PgBouncer (1.18) in transaction
 * pooling mode, started by `.ci/pgbouncer` as CI starts it: with
 * DB_POOLER=pgbouncer it migrates past the pooler (MIGRATIONS_DATABASE_URL)
 * and serves a whole checkout through it, many requests at once, on fewer
 * server connections than it has clients.
 */
const ROOT = path.resolve(__dirname, '../../..');
let database: FreshDatabase;
let bouncerDir: string;
let service: RunningService;

beforeAll(async () => {
  database = await freshPostgresDatabase();
  const server = new URL(database.url);
  bouncerDir = mkdtempSync(path.join(os.tmpdir(), 'cpp-pgbouncer-'));
  const { stdout } = await promisify(execFile)(path.join(ROOT, '.ci/pgbouncer'), [`${server.hostname}:${server.port || 5432}`, bouncerDir]);
  const pooled = new URL(database.url);
  pooled.port = stdout.trim();
  service = await startSourceService({
    DATABASE_URL: pooled.toString(),
    DB_POOLER: 'pgbouncer',
    MIGRATIONS_DATABASE_URL: database.url,
    DB_POOL_MAX: '8',
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await promisify(execFile)(path.join(ROOT, '.ci/pgbouncer'), ['stop', bouncerDir]).catch(() => undefined);
  await database?.drop();
});

it('serves a checkout, and forty requests at once, through the pooler', async () => {
  const token = await devClientToken(service.baseUrl);
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${service.baseUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'loc-pooled', 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const customers = await Promise.all(Array.from({ length: 40 }, (_u, index) => call('POST', '/v1/customers', { externalReferenceId: `pooled-${index}` })));
  expect(customers.map(({ status }) => status)).toEqual(Array(40).fill(200));
  const reads = await Promise.all(customers.map(({ body }) => call('GET', `/v1/customers/${body.id as string}`)));
  expect(reads.map(({ status }) => status)).toEqual(Array(40).fill(200));

  const customerId = customers[0]?.body.id as string;
  const card = await call('POST', `/v1/customers/${customerId}/payment-methods`, {
    type: 'CARD',
    card: { type: 'visa', lastFour: '4242', expiry: { month: '12', year: String(new Date().getUTCFullYear() + 2) } },
  });
  expect(card.status).toBe(201);
  const intent = await call('POST', '/v1/payment-intents', { amount: 800, currency: 'USD', externalReferenceId: 'order-pooled', customerId });
  const confirmed = await call('POST', `/v1/payment-intents/${intent.body.id as string}/confirm`, { paymentMethodId: card.body.id });
  expect(confirmed.body.status).toBe('REQUIRES_CAPTURE');
  const captured = await call('POST', `/v1/payment-intents/${intent.body.id as string}/capture`, {});
  expect(captured.body.status).toBe('SUCCEEDED');
  const events = await call('GET', `/v1/customers/${customerId}/events?limit=100`);
  expect((events.body.events as Array<{ type: string }>).map(({ type }) => type)).toContain('payment_intent.succeeded');
  // Nothing went wrong on the way: no error in the service's log.
  expect(service.logLines.filter((line) => /"level":"(error|fatal)"/.test(line))).toEqual([]);
}, 60_000);
