import { devClientToken, startSourceService, type RunningService } from '../support/process/service-process';
import { eventually } from '../support/webhook-receiver';

/**
 * A refund the processor answers later (the sandbox's 0358) is settled by
 * the sweep a real service process runs on its own schedule, with nothing
 * asking for it: PENDING in the create's answer, SUCCEEDED a little later.
 */
let service: RunningService;
beforeAll(async () => {
  service = await startSourceService({ SANDBOX_ASYNC_REFUND_SECONDS: '2' });
}, 90_000);
afterAll(() => service.stop());

it("settles a later refund by the service's own sweep", async () => {
  const token = await devClientToken(service.baseUrl);
  const headers = { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'refund-sweep', 'Content-Type': 'application/json' };
  const post = async (path: string, body: object) => {
    const response = await fetch(`${service.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const customer = await post('/v1/customers', {});
  const card = await post(`/v1/customers/${customer.body.id}/payment-methods`, {
    type: 'CARD',
    card: { type: 'VISA', lastFour: '0358', expiry: { month: '03', year: '2031' } },
  });
  const intent = await post('/v1/payment-intents', {
    amount: 900,
    currency: 'USD',
    externalReferenceId: 'order-sweep',
    customerId: customer.body.id,
    captureMethod: 'AUTOMATIC',
  });
  const paid = await post(`/v1/payment-intents/${intent.body.id}/confirm`, { paymentMethodId: card.body.id });
  expect(paid.body.status).toBe('SUCCEEDED');

  const refund = await post(`/v1/payment-intents/${intent.body.id}/refunds`, { amount: 400 });
  expect(refund).toMatchObject({ status: 201, body: { status: 'PENDING' } });
  await eventually(
    async () => ((await (await fetch(`${service.baseUrl}/v1/refunds/${refund.body.id}`, { headers })).json()) as { status: string }).status === 'SUCCEEDED',
    30_000,
    'the sweep to settle the refund',
  );
  expect(service.logLines.some((line) => line.includes('"level":50'))).toBe(false);
}, 60_000);
