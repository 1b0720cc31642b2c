import { randomUUID } from 'node:crypto';
import { servicesOnFreshDatabase, type ServicesOnFreshDatabase } from '../../support/process/services-on-fresh-database';
import { apiCall } from '../../support/process/api-call';
import { devClientToken, type RunningService } from '../../support/process/service-process';

/**
 * Issue 55's race across processes: three service processes on one
 * PostgreSQL database, one location. Captures, refunds and the close of
 * their business day run at once on all three (each advance of the sandbox
 * clock closes what is due, as each process's sweep does), and afterwards
 * every captured intent has one capture line, every refund one refund line,
 * and every closed batch sums to zero with net = payout + carriedOut −
 * carriedIn.
 */
let services: ServicesOnFreshDatabase;
let replicas: RunningService[];
let token: string;

beforeAll(async () => {
  services = await servicesOnFreshDatabase({});
  replicas = [await services.start(), await services.start(), await services.start()];
  token = await devClientToken(replicas[0]!.baseUrl);
}, 180_000);
afterAll(() => services?.close());

const location = `ledger-replicas-${randomUUID()}`;
const on = (index: number) => replicas[index % replicas.length] as RunningService;

type Answer = Record<string, unknown>;
interface BatchAnswer {
  id: string;
  counts: { lines: number };
  totals: { net: number; payout: number; carriedOut: number; carriedIn: number };
}

const call = (service: RunningService, method: string, route: string, body?: unknown) => apiCall(service, { token, location }, method, route, body);

async function ok(service: RunningService, method: string, route: string, body?: unknown): Promise<Answer> {
  const answer = await call(service, method, route, body);
  expect({ route, status: answer.status < 300 ? 'ok' : answer.body }).toEqual({ route, status: 'ok' });
  return answer.body;
}

/** An intent authorized on a saved card, waiting for its capture. */
async function authorized(index: number, customerId: string, cardId: string): Promise<string> {
  const intent = await ok(on(index), 'POST', '/v1/payment-intents', {
    amount: 1000 + index,
    currency: 'USD',
    externalReferenceId: `race-${index}`,
    customerId,
  });
  await ok(on(index + 1), 'POST', `/v1/payment-intents/${intent.id}/confirm`, { paymentMethodId: cardId });
  return String(intent.id);
}

const advance = (index: number, seconds: number) => ok(on(index), 'POST', '/v1/sandbox/clock/advance', { seconds });

it('loses no line and counts none twice when captures, refunds and closes race on three processes', async () => {
  const customer = await ok(on(0), 'POST', '/v1/customers', { externalReferenceId: 'race' });
  const card = await ok(on(1), 'POST', `/v1/customers/${customer.id}/payment-methods`, {
    type: 'CARD',
    card: { type: 'VISA', lastFour: '4242', expiry: { month: '03', year: '2031' } },
  });
  // The first capture opens today's batch, which says when the day closes: the clock goes to 20 s before, and the rest are
  // authorized then (a capture must follow its authorization within CAPTURE_WINDOW_SECONDS, 5 minutes).
  const first = await authorized(0, String(customer.id), String(card.id));
  await ok(on(0), 'POST', `/v1/payment-intents/${first}/capture`, {});
  const current = await ok(on(0), 'GET', '/v1/batches/current');
  const clock = await ok(on(0), 'GET', '/v1/sandbox/clock');
  await advance(0, Math.floor((Date.parse(String(current.closesAt)) - Date.parse(String(clock.now))) / 1000) - 20);
  const rest = await Promise.all(Array.from({ length: 17 }, (_, index) => authorized(index + 1, String(customer.id), String(card.id))));
  const intents = [first, ...rest];

  // Captures on every process while each moves the clock past the cutoff, closing the day: a capture lands on either side.
  await Promise.all([
    ...intents.slice(1).map((id, index) => ok(on(index), 'POST', `/v1/payment-intents/${id}/capture`, {})),
    ...replicas.map((_, index) => advance(index, 15)),
  ]);
  // Refunds of half of them racing the next day's close on every process, then a day for everything to close.
  await Promise.all([
    ...intents.slice(0, 9).map((id, index) => ok(on(index + 2), 'POST', `/v1/payment-intents/${id}/refunds`, { amount: 400 })),
    ...replicas.map((_, index) => advance(index, 43_200)),
  ]);
  await Promise.all(replicas.map((_, index) => advance(index, 86_400)));

  for (const [index, id] of intents.entries()) {
    const trail = (await ok(on(index), 'GET', `/v1/payment-intents/${id}/ledger`)).lines as Array<{ type: string; gross: number; batchId: string | null }>;
    expect({ id, lines: trail.map((line) => [line.type, line.gross]) }).toEqual({
      id,
      lines:
        index < 9
          ? [
              ['CAPTURE', 1000 + index],
              ['REFUND', -400],
            ]
          : [['CAPTURE', 1000 + index]],
    });
    for (const line of trail) expect(line.batchId).not.toBeNull();
  }

  const batches = (await ok(on(0), 'GET', '/v1/batches?status=CLOSED&limit=100')).batches as BatchAnswer[];
  expect(batches.length).toBeGreaterThanOrEqual(1);
  let captured = 0;
  for (const batch of batches) {
    const lines = (await ok(on(1), 'GET', `/v1/batches/${batch.id}/lines?limit=100`)).lines as Array<{ type: string; gross: number; net: number }>;
    const movements = lines.filter((line) => ['CAPTURE', 'REFUND', 'REFUND_FAILURE'].includes(line.type));
    expect(lines.reduce((sum, line) => sum + line.net, 0)).toBe(0);
    expect(movements.reduce((sum, line) => sum + line.net, 0)).toBe(batch.totals.net);
    expect(batch.totals.net).toBe(batch.totals.payout + batch.totals.carriedOut - batch.totals.carriedIn);
    expect(lines.length).toBe(batch.counts.lines);
    captured += lines.filter((line) => line.type === 'CAPTURE').reduce((sum, line) => sum + line.gross, 0);
  }
  expect(captured).toBe(intents.reduce((sum, _id, index) => sum + 1000 + index, 0));
  // Open now: at most the deficit of the refunds' day, carried into today, which closes with today's first movement.
  const open = (await ok(on(2), 'GET', '/v1/batches?status=OPEN')).batches as Array<BatchAnswer & { counts: { captures: number; refunds: number } }>;
  for (const batch of open)
    expect({ ...batch.counts, net: batch.totals.net }).toEqual({ captures: 0, refunds: 0, refundFailures: 0, disputes: 0, lines: 1, net: 0 });
}, 180_000);
