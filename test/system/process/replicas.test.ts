import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newSigningJwk } from '../../../src/auth/signing-keys';
import { withNewKey } from '../../../src/platform/secrets/secret-box';
import { freshPostgresDatabase, type FreshDatabase } from '../../support/process/fresh-postgres-database';
import { devClientToken, startSourceService, type RunningService } from '../../support/process/service-process';

/**
 * Two replicas on one fresh PostgreSQL database, sharing only the database and
 * the signing key (as a deployment would): a workload spread over both must
 * read exactly as it does on one.
 */
let database: FreshDatabase;
let keyDirectory: string;
let first: RunningService;
let second: RunningService;

beforeAll(async () => {
  database = await freshPostgresDatabase();
  keyDirectory = mkdtempSync(path.join(os.tmpdir(), 'cpp-key-'));
  const keyFile = path.join(keyDirectory, 'signing-key.json');
  writeFileSync(keyFile, JSON.stringify(await newSigningJwk()), { mode: 0o600 });
  const keyringFile = path.join(keyDirectory, 'secrets-keyring.json');
  writeFileSync(keyringFile, JSON.stringify(withNewKey()), { mode: 0o600 });
  const env = { DATABASE_URL: database.url, AUTH_SIGNING_KEY_FILE: keyFile, SECRETS_ENCRYPTION_KEY_FILE: keyringFile };
  // Both start (and migrate) at once: Knex's migration lock lets one run them.
  [first, second] = await Promise.all([startSourceService(env), startSourceService(env)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await database?.drop();
  rmSync(keyDirectory, { recursive: true, force: true });
});

type Step = { status: number; body: unknown };

/** Runs one checkout's calls, alternating between two base URLs; answers what each call returned. */
async function workload(urls: [string, string], location: string): Promise<Step[]> {
  const accessToken = await devClientToken(urls[0]);
  const steps: Step[] = [];
  let turn = 0;
  const call = async (method: string, route: string, body?: unknown): Promise<{ id?: string; sessionSecret?: string }> => {
    const url = urls[turn++ % 2];
    const response = await fetch(`${url}${route}`, {
      method,
      headers: {
        Authorization: `Bearer ${accessToken}`,
        'Platform-Restaurant-External-ID': location,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
    steps.push({ status: response.status, body: parsed });
    return (parsed ?? {}) as { id?: string };
  };
  const year = String(new Date().getUTCFullYear() + 2);
  const customer = await call('POST', '/v1/customers', { externalReferenceId: 'replica-user' });
  const cardA = await call('POST', `/v1/customers/${customer.id}/payment-methods`, {
    type: 'CARD',
    card: { type: 'VISA', lastFour: '4242', expiry: { month: '01', year } },
  });
  const cardB = await call('POST', `/v1/customers/${customer.id}/payment-methods`, {
    type: 'CARD',
    card: { type: 'AMEX', lastFour: '0005', expiry: { month: '02', year } },
  });
  await call('GET', `/v1/customers/${customer.id}/payment-methods`);
  await call('POST', `/v1/customers/${customer.id}/payment-methods/defaults`, { paymentMethodId: cardA.id, contextName: 'web' });
  await call('GET', `/v1/customers/${customer.id}/payment-methods/defaults/web`);
  await call('POST', `/v1/customers/${customer.id}/payment-methods/defaults`, { paymentMethodId: cardB.id, contextName: 'web' });
  await call('GET', `/v1/customers/${customer.id}/payment-methods/defaults/web`);
  await call('DELETE', `/v1/customers/${customer.id}/payment-methods/${cardB.id}`);
  await call('GET', `/v1/customers/${customer.id}/payment-methods/defaults/web`);
  await call('POST', `/v1/customers/${customer.id}/payment-methods/defaults`, { paymentMethodId: cardA.id, contextName: 'web' });
  await call('DELETE', `/v1/customers/${customer.id}/payment-methods/defaults/web`);
  await call('DELETE', `/v1/customers/${customer.id}/payment-methods/defaults/web`);
  const intent = await call('POST', '/v1/payment-intents', { amount: 500, currency: 'USD', externalReferenceId: 'order-1', customerId: customer.id });
  await call('GET', `/v1/payment-intents/${intent.id}`);
  await call('POST', `/v1/payment-intents/${intent.id}/cancel`);
  await call('POST', `/v1/payment-intents/${intent.id}/cancel`);
  await call('GET', `/v1/customers?externalReferenceId=replica-user`);
  return steps;
}

/** The same answers, once ids, secrets, dates and request ids (which differ run to run) are named by order of appearance. */
function normalized(steps: Step[]): string {
  const names = new Map<string, string>();
  return JSON.stringify(steps).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|PI_[^"]+|\d{4}-\d\d-\d\dT[^"]+Z/g, (value) => {
    if (!names.has(value)) names.set(value, `<${names.size}>`);
    return names.get(value) as string;
  });
}

describe('two replicas on one PostgreSQL database', () => {
  it('answers a workload spread over both exactly as one replica answers it', async () => {
    const spread = await workload([first.baseUrl, second.baseUrl], 'replicas-spread');
    const single = await workload([first.baseUrl, first.baseUrl], 'replicas-single');
    expect(spread.map((step) => step.status)).toEqual([200, 201, 201, 200, 200, 200, 200, 200, 204, 404, 200, 200, 404, 201, 200, 200, 409, 200]);
    expect(normalized(spread)).toBe(normalized(single));
  }, 60_000);
});

describe('login throttle across replicas', () => {
  it('counts failed logins made on either replica against one budget', async () => {
    const login = (url: string, clientSecret: string): Promise<Response> =>
      fetch(`${url}/authentication/v1/authentication/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ clientId: 'local-dev-client', clientSecret }),
      });
    // AUTH_LOGIN_MAX_FAILURES defaults to 5: three on one replica, two on the other.
    const failures = [];
    for (const url of [first.baseUrl, second.baseUrl, first.baseUrl, second.baseUrl, first.baseUrl]) {
      failures.push((await login(url, 'a-wrong-guess')).status);
    }
    expect(failures).toEqual([401, 401, 401, 401, 401]);
    // Had each replica counted alone, the second would still allow three more guesses.
    const refused = await login(second.baseUrl, 'local-dev-secret');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 30_000);
});
