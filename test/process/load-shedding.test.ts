import { randomUUID } from 'node:crypto';
import { devClientToken, type RunningService } from '../support/process/service-process';
import { servicesOnFreshDatabase, type ServicesOnFreshDatabase } from '../support/process/services-on-fresh-database';

/**
 * Overload on a real process, counted rather than timed: with
 * OVERLOAD_MAX_IN_FLIGHT=4 and confirms that each hold their request for a
 * while (the sandbox's latency: no database connection is held), twelve at
 * once are four served and eight answered 503 SERVICE_OVERLOADED with
 * Retry-After; the moment the load is gone, the next request is served.
 */
let services: ServicesOnFreshDatabase;
let service: RunningService;

beforeAll(async () => {
  services = await servicesOnFreshDatabase({ OVERLOAD_MAX_IN_FLIGHT: '4', SANDBOX_LATENCY_MS: '2000' });
  service = await services.start();
}, 60_000);

afterAll(() => services?.close());

it('serves what it can hold and sheds the rest at once, then serves again', async () => {
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
  for (let index = 0; index < 12; index += 1) {
    const intent = await call('POST', '/v1/payment-intents', { amount: 500, currency: 'USD', externalReferenceId: `order-${index}`, customerId: customer.body.id });
    intents.push(intent.body.id as string);
  }

  const answers = await Promise.all(intents.map((id) => call('POST', `/v1/payment-intents/${id}/confirm`, { paymentMethodId: card.body.id })));
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
