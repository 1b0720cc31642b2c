import { randomUUID } from 'node:crypto';
import { devClientToken, type RunningService } from '../../support/process/service-process';
import { servicesOnFreshDatabase, type ServicesOnFreshDatabase } from '../../support/process/services-on-fresh-database';
import { eventually } from '../../support/webhook-receiver';

/**
 * The checkout's promises on real processes over one PostgreSQL database:
 * a process killed (-9) while an intent is PROCESSING leaves it stuck for no
 * longer than the recovery bound once another process runs, authorized once;
 * and an authorization left uncaptured is voided by the schedule within 10 s
 * of its capture window's end, with nobody calling anything.
 */
let services: ServicesOnFreshDatabase;

beforeAll(async () => {
  services = await servicesOnFreshDatabase({ PROCESSING_RECOVERY_SECONDS: '1', CAPTURE_WINDOW_SECONDS: '2' });
}, 60_000);

afterAll(() => services?.close());

const start = (extra: Record<string, string> = {}): Promise<RunningService> => services.start(extra);
const query = <Row>(sql: string, values: unknown[] = []): Promise<Row[]> => services.query<Row>(sql, values);

type Api = (method: string, route: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

async function apiOf(service: RunningService, location: string): Promise<Api> {
  const token = await devClientToken(service.baseUrl);
  return async (method, route, body) => {
    const response = await fetch(`${service.baseUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': location, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

/** A customer with a card, and an intent for them. */
async function checkout(api: Api, captureMethod: 'MANUAL' | 'AUTOMATIC'): Promise<{ intentId: string; cardId: string }> {
  const customer = await api('POST', '/v1/customers', { externalReferenceId: `crm-${randomUUID()}` });
  expect({ step: 'customer', status: customer.status, body: customer.body }).toMatchObject({ step: 'customer', status: 200 });
  const card = await api('POST', `/v1/customers/${customer.body.id as string}/payment-methods`, {
    type: 'CARD',
    card: { type: 'visa', lastFour: '4242', expiry: { month: '12', year: String(new Date().getUTCFullYear() + 2) } },
  });
  expect({ step: 'card', status: card.status, body: card.body }).toMatchObject({ step: 'card', status: 201 });
  const intent = await api('POST', '/v1/payment-intents', {
    amount: 990,
    currency: 'USD',
    externalReferenceId: 'order-kill',
    customerId: customer.body.id,
    captureMethod,
  });
  expect({ step: 'intent', status: intent.status, body: intent.body }).toMatchObject({ step: 'intent', status: 201 });
  return { intentId: intent.body.id as string, cardId: card.body.id as string };
}

it('an intent PROCESSING when its process is killed is settled by the next process, authorized once', async () => {
  const location = 'loc-kill-processing';
  // The sandbox decides at once, then takes 30 s to answer: the kill falls between the two.
  const slow = await start({ SANDBOX_LATENCY_MS: '30000' });
  const api = await apiOf(slow, location);
  const { intentId, cardId } = await checkout(api, 'AUTOMATIC');
  const confirming = api('POST', `/v1/payment-intents/${intentId}/confirm`, { paymentMethodId: cardId }).catch(() => undefined);
  await eventually(async () => (await api('GET', `/v1/payment-intents/${intentId}`)).body.status === 'PROCESSING', 20_000, 'PROCESSING');
  await eventually(
    async () => (await query('select 1 from sandbox_processor_operations where idempotency_key = $1', [`${intentId}:1`])).length === 1,
    20_000,
    'the authorization',
  );
  slow.signal('SIGKILL');
  await slow.exited;
  await confirming;

  const next = await start();
  const after = await apiOf(next, location);
  await eventually(async () => (await after('GET', `/v1/payment-intents/${intentId}`)).body.status === 'SUCCEEDED', 30_000, 'the recovery');
  const authorizations = await query<{ state: string }>('select state from sandbox_processor_operations where location_id = $1 and operation = $2', [
    location,
    'authorize',
  ]);
  expect(authorizations).toEqual([{ state: 'captured' }]);
  const events = await query<{ type: string }>("select type from events where location_id = $1 and data->'object'->>'id' = $2 order by id", [
    location,
    intentId,
  ]);
  expect(events.map(({ type }) => type)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
}, 120_000);

it('an authorization left uncaptured is voided by the schedule within 10 s of its window, AUTOMATIC', async () => {
  const location = 'loc-capture-window';
  const service = await start();
  const api = await apiOf(service, location);
  const { intentId, cardId } = await checkout(api, 'MANUAL');
  const confirmed = await api('POST', `/v1/payment-intents/${intentId}/confirm`, { paymentMethodId: cardId });
  expect({ status: confirmed.status, body: confirmed.body }).toMatchObject({ status: 200, body: { status: 'REQUIRES_CAPTURE' } });
  const [row] = await query<{ capture_before: Date }>('select capture_before from payment_intents where location_id = $1 and id = $2', [location, intentId]);
  await eventually(async () => (await api('GET', `/v1/payment-intents/${intentId}`)).body.status === 'CANCELED', 30_000, 'the void');
  const [voided] = await query<{ updated_at: Date }>('select updated_at from payment_intents where location_id = $1 and id = $2', [location, intentId]);
  expect(voided!.updated_at.getTime() - row!.capture_before.getTime()).toBeLessThan(10_000);
  const final = await api('GET', `/v1/payment-intents/${intentId}`);
  expect(final.body).toMatchObject({ status: 'CANCELED', cancellationReason: 'AUTOMATIC', latestPayment: { status: 'VOIDED' } });
}, 120_000);
