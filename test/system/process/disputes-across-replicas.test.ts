import { randomUUID } from 'node:crypto';
import { apiCall } from '../../support/process/api-call';
import { servicesOnFreshDatabase, type ServicesOnFreshDatabase } from '../../support/process/services-on-fresh-database';
import { devClientToken, type RunningService } from '../../support/process/service-process';

/**
 * Issue 56's race across processes: two service processes on one PostgreSQL
 * database, one payment. Twenty refunds and two chargebacks race on both;
 * afterwards refunded plus disputed is within captured, each is what its
 * successful answers took, and each opened chargeback has one withdrawal
 * line and one fee line.
 */
let services: ServicesOnFreshDatabase;
let replicas: RunningService[];
let token: string;

beforeAll(async () => {
  services = await servicesOnFreshDatabase({});
  replicas = [await services.start(), await services.start()];
  token = await devClientToken(replicas[0]!.baseUrl);
}, 180_000);
afterAll(() => services?.close());

const location = `disputes-replicas-${randomUUID()}`;
const on = (index: number) => replicas[index % replicas.length] as RunningService;
const call = (index: number, method: string, route: string, body?: unknown) => apiCall(on(index), { token, location }, method, route, body);

async function ok(index: number, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await call(index, method, route, body);
  expect({ route, status: answer.status < 300 ? 'ok' : answer.body }).toEqual({ route, status: 'ok' });
  return answer.body;
}

it('never lets refunds and chargebacks racing on two processes take more than was captured', async () => {
  const customer = await ok(0, 'POST', '/v1/customers', { externalReferenceId: 'race' });
  const card = await ok(1, 'POST', `/v1/customers/${customer.id}/payment-methods`, {
    type: 'CARD',
    card: { type: 'VISA', lastFour: '4242', expiry: { month: '03', year: '2031' } },
  });
  const intent = await ok(0, 'POST', '/v1/payment-intents', {
    amount: 2000,
    currency: 'USD',
    externalReferenceId: 'race',
    customerId: customer.id,
    captureMethod: 'AUTOMATIC',
  });
  await ok(1, 'POST', `/v1/payment-intents/${intent.id}/confirm`, { paymentMethodId: card.id });

  const answers = await Promise.all([
    call(0, 'POST', `/v1/sandbox/payment-intents/${intent.id}/disputes`, { stage: 'CHARGEBACK', reason: 'FRAUDULENT', amount: 900 }),
    call(1, 'POST', `/v1/sandbox/payment-intents/${intent.id}/disputes`, { stage: 'CHARGEBACK', reason: 'DUPLICATE', amount: 700 }),
    ...Array.from({ length: 20 }, (_, index) => call(index, 'POST', `/v1/payment-intents/${intent.id}/refunds`, { amount: 100 })),
  ]);
  expect(answers.map((answer) => answer.status).filter((status) => ![201, 409].includes(status))).toEqual([]);
  const opened = answers.slice(0, 2).filter((answer) => answer.status === 201);
  const refunded = answers.slice(2).filter((answer) => answer.status === 201).length * 100;
  const disputed = opened.reduce((sum, answer) => sum + Number(answer.body.amount), 0);

  const after = await ok(0, 'GET', `/v1/payment-intents/${intent.id}`);
  expect({ refunded: after.amountRefunded, disputed: after.amountDisputed }).toEqual({ refunded, disputed });
  // Never more than captured, and nothing left behind: the racers asked for 3,600 of 2,000, in hundreds, and a refund of
  // 100 is refused only once less than 100 is left, so every cent went to one of them.
  expect(refunded + disputed).toBe(2000);
  expect(after.refundableAmount).toBe(0);

  const trail = (await ok(1, 'GET', `/v1/payment-intents/${intent.id}/ledger`)).lines as Array<{ type: string; sourceId: string; gross: number }>;
  for (const answer of opened) {
    const lines = trail.filter((line) => line.sourceId === answer.body.id).map((line) => [line.type, line.gross]);
    expect(lines).toEqual([
      ['DISPUTE_WITHDRAWAL', -Number(answer.body.amount)],
      ['DISPUTE_FEE', 0],
    ]);
  }
  expect(trail.filter((line) => line.type === 'REFUND')).toHaveLength(refunded / 100);
}, 120_000);
