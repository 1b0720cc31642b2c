import { randomUUID } from 'node:crypto';
import { servicesOnFreshDatabase, type ServicesOnFreshDatabase } from '../../support/process/services-on-fresh-database';
import { apiCall } from '../../support/process/api-call';
import { devClientToken, type RunningService } from '../../support/process/service-process';

/**
 * Two service processes on one PostgreSQL database, one location: an intent
 * created on the second right after the first answered a sandbox clock
 * advance is stamped on the advanced clock, and stays payable. Before, the
 * second stamped it with the offset it had read up to a second earlier: the
 * intent had `creationDate` T where the advance answered T+25 h, and was
 * CANCELED/EXPIRED 3.5 s later with its secret dead.
 */
let services: ServicesOnFreshDatabase;
let first: RunningService;
let second: RunningService;
let token: string;

beforeAll(async () => {
  services = await servicesOnFreshDatabase({});
  first = await services.start();
  second = await services.start();
  token = await devClientToken(first.baseUrl);
}, 120_000);
afterAll(() => services?.close());

const call = (service: RunningService, location: string, method: string, route: string, body?: unknown) =>
  apiCall(service, { token, location }, method, route, body);

it('stamps an intent made on one process right after another answered an advance on the advanced clock', async () => {
  const made: Array<{ location: string; id: string; status: unknown }> = [];
  for (let round = 0; round < 5; round += 1) {
    const location = `clock-replicas-${round}-${randomUUID()}`;
    const read = await call(second, location, 'GET', '/v1/sandbox/clock');
    expect({ status: read.status, body: read.status === 200 ? undefined : read.body }).toEqual({ status: 200, body: undefined });
    const advanced = await call(first, location, 'POST', '/v1/sandbox/clock/advance', { seconds: 90_000 });
    expect(advanced.status).toBe(200);
    const created = await call(second, location, 'POST', '/v1/payment-intents', { amount: 1000, currency: 'USD', externalReferenceId: `r-${round}` });
    expect(created.status).toBe(201);
    expect(Date.parse(String(created.body.creationDate))).toBeGreaterThanOrEqual(Date.parse(String(advanced.body.now)));
    made.push({ location, id: String(created.body.id), status: created.body.status });
  }
  // Seconds later (both processes' expiry sweeps have run meanwhile), every intent still waits for its payment.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  for (const intent of made) {
    const read = await call(first, intent.location, 'GET', `/v1/payment-intents/${intent.id}`);
    expect({ status: read.status, intentStatus: read.body.status }).toEqual({ status: 200, intentStatus: intent.status });
  }
}, 120_000);
