import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { devClientToken, type RunningService } from '../../support/process/service-process';
import { servicesOnFreshDatabase, type ServicesOnFreshDatabase } from '../../support/process/services-on-fresh-database';

/**
 * Overload on a real process, counted rather than timed: with
 * OVERLOAD_MAX_IN_FLIGHT=4 and confirms that each hold their request for a
 * while (the sandbox's latency: no database connection is held), twelve at
 * once are four served and eight answered 503 SERVICE_OVERLOADED with
 * Retry-After; the moment the load is gone, the next request is served. A
 * connection that asks again at once after its 503 gets its next ones only
 * after OVERLOAD_REPEAT_HOLD_MS, then twice that, and so on up to Retry-After
 * (counted: how many answers it got in the time it asked, never how long one
 * took).
 */
const HOLD_MS = 100;
let services: ServicesOnFreshDatabase;
let service: RunningService;

beforeAll(async () => {
  services = await servicesOnFreshDatabase({ OVERLOAD_MAX_IN_FLIGHT: '4', OVERLOAD_REPEAT_HOLD_MS: String(HOLD_MS), SANDBOX_LATENCY_MS: '4000' });
  service = await services.start();
}, 60_000);

afterAll(() => services?.close());

/** A customer with a card and `count` intents to confirm, made through the API; and the caller used. */
async function confirmable(count: number) {
  const token = await devClientToken(service.baseUrl);
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${service.baseUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'loc-overload', 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Record<string, unknown> };
  };
  const customer = await call('POST', '/v1/customers', { externalReferenceId: `crm-${randomUUID()}` });
  const card = await call('POST', `/v1/customers/${customer.body.id as string}/payment-methods`, {
    type: 'CARD',
    card: { type: 'visa', lastFour: '4242', expiry: { month: '12', year: String(new Date().getUTCFullYear() + 2) } },
  });
  const intents: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const intent = await call('POST', '/v1/payment-intents', {
      amount: 500,
      currency: 'USD',
      externalReferenceId: `order-${index}`,
      customerId: customer.body.id,
    });
    intents.push(intent.body.id as string);
  }
  const confirm = (id: string) => call('POST', `/v1/payment-intents/${id}/confirm`, { paymentMethodId: card.body.id });
  return { token, call, customer, intents, confirm };
}

it('serves what it can hold and sheds the rest at once, then serves again', async () => {
  const { call, customer, intents, confirm } = await confirmable(12);
  const answers = await Promise.all(intents.map(confirm));
  const served = answers.filter(({ status }) => status === 200);
  const shed = answers.filter(({ status }) => status === 503);
  expect({ served: served.length, shed: shed.length }).toEqual({ served: 4, shed: 8 });
  for (const answer of served) expect(answer.body.status).toBe('REQUIRES_CAPTURE');
  for (const answer of shed) {
    expect(answer.retryAfter).toBe('1');
    expect(answer.body).toMatchObject({ status: 503, code: 5006, messageKey: 'SERVICE_OVERLOADED' });
  }
  // Nothing was done for a shed request: its intent is as it was.
  const untouched = await call('GET', `/v1/payment-intents/${intents[answers.findIndex(({ status }) => status === 503)] as string}`);
  expect(untouched.body.status).toBe('REQUIRES_PAYMENT_METHOD');
  // The load is gone: served at once.
  expect((await call('GET', `/v1/customers/${customer.body.id as string}`)).status).toBe(200);
  // Probes are never shed.
  expect((await fetch(`${service.baseUrl}/health/ready`)).status).toBe(200);
}, 60_000);

/** GET over the one kept-alive connection `agent` holds, as a retry loop without back-off would ask. */
function getOn(agent: http.Agent, url: string, token: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'loc-overload' } }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] }));
      })
      .on('error', reject);
  });
}

it('holds the 503s of a connection that asks again at once, each hold twice the last: each a 503 with Retry-After', async () => {
  const { token, customer, intents, confirm } = await confirmable(4);
  // Four confirms fill the bound for the sandbox's 4 s: time for the held answers (about 1.5 s) with room to spare.
  const holding = Promise.all(intents.map(confirm));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const url = `${service.baseUrl}/v1/customers/${customer.body.id as string}`;
    // The confirms reach the bound well before the sandbox answers them; a GET before that would take a confirm's place.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const first = await getOn(agent, url, token);
    const startedAt = performance.now();
    const answers = [first];
    while (performance.now() - startedAt < 1000) answers.push(await getOn(agent, url, token));
    const elapsedMs = performance.now() - startedAt;
    for (const answer of answers) expect(answer).toEqual({ status: 503, retryAfter: '1' });
    // The first 503 was at once; each after it waited its hold, doubled for every early ask in a row up to
    // Retry-After's second (a timer never fires much early: 90 %).
    const holds = answers.slice(1).map((_answer, index) => Math.min(HOLD_MS * 2 ** index, 1000));
    expect(elapsedMs).toBeGreaterThanOrEqual(0.9 * holds.reduce((sum, hold) => sum + hold, 0));
    // Without the hold the loop gets hundreds in the same time; with it, still more than one.
    expect(answers.length).toBeGreaterThan(1);
  } finally {
    agent.destroy();
  }
  expect((await holding).map(({ status }) => status)).toEqual([200, 200, 200, 200]);
}, 60_000);
