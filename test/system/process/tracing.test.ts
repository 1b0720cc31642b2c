import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freshPostgresDatabase, type FreshDatabase } from '../../support/process/fresh-postgres-database';
import { devClientToken, startSourceService, type RunningService } from '../../support/process/service-process';
import { eventually } from '../../support/webhook-receiver';

/**
 * OpenTelemetry on a real process: with OTEL_EXPORTER_OTLP_ENDPOINT set, one
 * request's spans reach a small OTLP/HTTP receiver of the test's own, in the
 * trace its `traceparent` named: the request's (method, route, status) and
 * its queries' (the statement, never its values); the request's log lines
 * carry the trace id; no secret or card field is in any attribute.
 */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

let database: FreshDatabase;
let receiver: Server;
const spans: Span[] = [];
const bodies: string[] = [];
let service: RunningService;

beforeAll(async () => {
  database = await freshPostgresDatabase();
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      if (request.url === '/v1/traces') {
        const parsed = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> };
        for (const resource of parsed.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  service = await startSourceService({
    DATABASE_URL: database.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await new Promise((resolve) => receiver.close(resolve));
  await database?.drop();
});

const attribute = (span: Span, key: string): unknown => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : (value.stringValue ?? value.intValue ?? value.boolValue);
};

it("exports one request's spans in the caller's trace: route, status, statements without values; its log lines carry the trace id", async () => {
  const token = await devClientToken(service.baseUrl);
  const headers = { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'loc-traced', 'Content-Type': 'application/json' };
  const created = await fetch(`${service.baseUrl}/v1/customers`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ externalReferenceId: 'traced-ref-4711', description: 'traced' }),
  });
  const customer = (await created.json()) as { id: string };
  const card = await fetch(`${service.baseUrl}/v1/customers/${customer.id}/payment-methods`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ type: 'CARD', card: { type: 'visa', lastFour: '4242', expiry: { month: '12', year: String(new Date().getUTCFullYear() + 2) } } }),
  });
  expect(card.status).toBe(201);

  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  const read = await fetch(`${service.baseUrl}/v1/customers/${customer.id}/payment-methods`, {
    headers: { ...headers, traceparent: `00-${traceId}-${parentId}-01` },
  });
  expect(read.status).toBe(200);

  await eventually(() => spans.some((span) => span.traceId === traceId && span.kind === 2), 20_000, "the request's server span");
  await eventually(
    () =>
      spans
        .filter((span) => span.traceId === traceId)
        .some((span) => attribute(span, 'db.system') === 'postgresql' || attribute(span, 'db.system.name') === 'postgresql'),
    20_000,
    'a query span',
  );
  const ofRequest = spans.filter((span) => span.traceId === traceId);
  const server = ofRequest.find((span) => span.kind === 2) as Span;
  expect(server.parentSpanId).toBe(parentId);
  expect(attribute(server, 'http.route')).toBe('/v1/customers/:id/payment-methods');
  expect(String(attribute(server, 'http.response.status_code') ?? attribute(server, 'http.status_code'))).toBe('200');
  const queries = ofRequest.filter((span) => attribute(span, 'db.system') === 'postgresql' || attribute(span, 'db.system.name') === 'postgresql');
  const statements = queries.map((span) => String(attribute(span, 'db.statement') ?? attribute(span, 'db.query.text')));
  expect(statements.some((text) => /payment_methods/.test(text) && /\$1/.test(text))).toBe(true);
  // The values bound to the statements are not in them.
  for (const text of statements) expect(text).not.toContain(customer.id);

  // Every log line of the request names its trace.
  const lines = service.logLines.filter((line) => line.includes(`/v1/customers/:id/payment-methods`) && line.includes('"request completed"'));
  expect(lines.some((line) => line.includes(`"traceId":"${traceId}"`))).toBe(true);

  // Nothing secret in anything exported: no token, no card number, no client secret, no personal reference.
  const exported = bodies.join('\n');
  for (const secret of [token, 'local-dev-secret', 'traced-ref-4711', '"4242"']) expect(exported).not.toContain(secret);
}, 60_000);
