import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../support/process/free-port';
import { startSourceService, type RunningService } from '../support/process/service-process';

/**
 * Issue 36, item 9: Prism's validation proxy (Stoplight's, from the npm
 * registry) in front of a real service process, validating every request
 * and answer of a whole session against openapi/openapi.yaml: the checkout,
 * the cards and defaults, the events, the webhook endpoints, the erasure and
 * the usual refusals. It reports each mismatch in an `sl-violations` header;
 * none may appear. docs/openapi-and-client.md gives the same command.
 */
const ROOT = path.resolve(__dirname, '../..');
const LOCATION = 'prism-location';

let service: RunningService;
let prism: ChildProcess;
let base: string;
const violations: Array<{ call: string; violations: string }> = [];

beforeAll(async () => {
  service = await startSourceService({ CORS_ALLOWED_ORIGINS: 'https://checkout.example.test' });
  const port = await freePort();
  prism = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/.bin/prism'), 'proxy', 'openapi/openapi.yaml', service.baseUrl, '--port', String(port), '--cors', 'false'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output.join('\n')}`)), 60_000);
    const onLine = (line: string) => {
      output.push(line);
      if (/Prism is listening/.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    };
    createInterface({ input: prism.stdout! }).on('line', onLine);
    createInterface({ input: prism.stderr! }).on('line', onLine);
    prism.once('exit', (code) => reject(new Error(`Prism exited with ${code}:\n${output.join('\n')}`)));
  });
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  prism?.kill('SIGTERM');
  await service?.stop();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One call through Prism; its violations, if any, are kept for the last test. */
async function call(method: string, url: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` }),
      'Platform-Restaurant-External-ID': LOCATION,
      ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const found = response.headers.get('sl-violations');
  if (found !== null) violations.push({ call: `${method} ${url} → ${response.status}`, violations: found });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

describe("Prism's validation proxy in front of the service", () => {
  it('sees a whole session of valid requests and every answer match the document', async () => {
    const login = await call('POST', '/authentication/v1/authentication/login', { body: { clientId: 'local-dev-client', clientSecret: 'local-dev-secret' } });
    expect(login.status).toBe(200);
    const token = (login.body.token as { accessToken: string }).accessToken;
    const as = { token };

    const customer = await call('POST', '/v1/customers', {
      ...as,
      body: { externalReferenceId: 'crm-prism', description: 'ada@example.com' },
      headers: { 'Idempotency-Key': 'prism-customer' },
    });
    expect(customer.status).toBe(200);
    const id = customer.body.id as string;
    expect((await call('GET', '/v1/customers?limit=5', as)).status).toBe(200);
    expect((await call('GET', `/v1/customers/${id}`, as)).status).toBe(200);
    expect((await call('PATCH', `/v1/customers/${id}`, { ...as, body: { description: 'ada.lovelace@example.com' } })).status).toBe(200);

    const card = await call('POST', `/v1/customers/${id}/payment-methods`, {
      ...as,
      body: { type: 'CARD', card: { type: 'visa', lastFour: '4242', expiry: { month: '03', year: '2031' } }, fingerprint: 'fp-prism' },
    });
    expect(card.status).toBe(201);
    const cardId = card.body.id as string;
    expect((await call('GET', `/v1/customers/${id}/payment-methods`, as)).status).toBe(200);
    expect(
      (await call('PATCH', `/v1/customers/${id}/payment-methods/${cardId}`, { ...as, body: { card: { expiry: { month: '04', year: '2032' } } } })).status,
    ).toBe(200);
    expect((await call('POST', `/v1/customers/${id}/payment-methods/defaults`, { ...as, body: { paymentMethodId: cardId, contextName: 'web' } })).status).toBe(
      200,
    );
    expect((await call('GET', `/v1/customers/${id}/payment-methods/defaults/web`, as)).status).toBe(200);

    const intent = await call('POST', '/v1/payment-intents', {
      ...as,
      body: { amount: 1250, currency: 'USD', externalReferenceId: 'order-prism', customerId: id, email: 'ada@example.com', amountDetails: { tip: 150 } },
    });
    expect(intent.status).toBe(201);
    const intentId = intent.body.id as string;
    expect((await call('POST', `/v1/payment-intents/${intentId}`, { ...as, body: { paymentMethodId: cardId } })).status).toBe(200);
    expect(
      (await call('GET', `/v1/payment-intents/${intentId}`, { ...as, headers: { 'Platform-Session-Secret': intent.body.sessionSecret as string } })).status,
    ).toBe(200);
    expect((await call('POST', `/v1/payment-intents/${intentId}/confirm`, { ...as, body: {} })).status).toBe(200);
    expect((await call('POST', `/v1/payment-intents/${intentId}/capture`, { ...as, body: { amountToCapture: 1000 } })).status).toBe(200);
    const other = await call('POST', '/v1/payment-intents', { ...as, body: { amount: 500, currency: 'USD', externalReferenceId: 'order-prism-2' } });
    expect((await call('POST', `/v1/payment-intents/${other.body.id as string}/cancel`, { ...as, body: { cancellationReason: 'ABANDONED' } })).status).toBe(
      200,
    );
    expect((await call('GET', '/v1/payment-intents?limit=5&status=SUCCEEDED', as)).status).toBe(200);

    const events = await call('GET', '/v1/events?limit=5&type=payment_intent.*', as);
    expect(events.status).toBe(200);
    const eventId = ((events.body.events as Array<{ id: string }>)[0] as { id: string }).id;
    expect((await call('GET', `/v1/events/${eventId}`, as)).status).toBe(200);
    expect((await call('GET', `/v1/customers/${id}/events?limit=3&createdAfter=2026-01-01T00:00:00Z`, as)).status).toBe(200);

    const endpoint = await call('POST', '/v1/webhook-endpoints', {
      ...as,
      body: { url: 'http://127.0.0.1:9/hooks', enabledEvents: ['*'] },
      headers: { 'Idempotency-Key': 'prism-endpoint' },
    });
    expect(endpoint.status).toBe(201);
    const endpointId = endpoint.body.id as string;
    expect((await call('GET', '/v1/webhook-endpoints', as)).status).toBe(200);
    expect((await call('PATCH', `/v1/webhook-endpoints/${endpointId}`, { ...as, body: { status: 'DISABLED' } })).status).toBe(200);
    expect((await call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, as)).status).toBe(200);
    expect((await call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=5`, as)).status).toBe(200);
    expect((await call('DELETE', `/v1/webhook-endpoints/${endpointId}`, as)).status).toBe(204);

    // The refusals a client meets, each an ErrorMessage as documented.
    expect((await call('GET', '/v1/customers/019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9', as)).status).toBe(404);
    expect((await call('POST', `/v1/payment-intents/${intentId}/capture`, { ...as, body: {} })).status).toBe(409);
    // Sent without a token on purpose: Prism flags the request itself (its security), and nothing in the answer.
    expect((await call('GET', '/v1/customers', {})).status).toBe(401);
    const unauthenticated = violations.pop();
    expect(unauthenticated?.call).toBe('GET /v1/customers → 401');
    expect(JSON.parse(unauthenticated?.violations ?? '[]')).toEqual([
      { location: ['request'], severity: 'Error', code: 401, message: 'Invalid security scheme used' },
    ]);

    expect((await call('DELETE', `/v1/customers/${id}/payment-methods/defaults/web`, as)).status).toBe(200);
    expect((await call('DELETE', `/v1/customers/${id}/payment-methods/${cardId}`, as)).status).toBe(204);
    expect((await call('DELETE', `/v1/customers/${id}`, as)).status).toBe(200);

    expect(violations).toEqual([]);
  }, 120_000);
});
