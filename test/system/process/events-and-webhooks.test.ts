import { Webhook } from 'standardwebhooks';
import { devClientToken, type RunningService } from '../../support/process/service-process';
import { servicesOnFreshDatabase, type ServicesOnFreshDatabase } from '../../support/process/services-on-fresh-database';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';

/**
 * The change log and the webhooks on real processes over one PostgreSQL
 * database: a `kill -9` under a stream of writes loses no event and leaves
 * none without its change; two replicas deliver every event exactly once to a
 * receiver that counts; and deliveries pending when every process stopped are
 * made by the next one to start.
 */
let services: ServicesOnFreshDatabase;

beforeAll(async () => {
  services = await servicesOnFreshDatabase({ WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.5,1,1,1,1,1,1,1' });
}, 60_000);

afterAll(() => services?.close());

const start = (): Promise<RunningService> => services.start();
const query = <Row>(sql: string, values: unknown[] = []): Promise<Row[]> => services.query<Row>(sql, values);

function api(service: RunningService, token: string, location: string) {
  return async (method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${service.baseUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': location, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };
}

describe('events and webhooks across processes', () => {
  it('kill -9 under a stream of writes: every answered create has its event, and no event lacks its customer', async () => {
    const service = await start();
    const call = api(service, await devClientToken(service.baseUrl), 'kill-9');
    const answered: string[] = [];
    let stop = false;
    // Eight writers, each creating customers one after another until the process dies under them.
    const writers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const result = await call('POST', '/v1/customers', {}).catch(() => undefined);
        if (result === undefined) return;
        if (result.status === 200) answered.push(result.body.id as string);
      }
    });
    await eventually(() => answered.length >= 40);
    service.signal('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await service.exited;

    const customers = (await query<{ id: string }>("select id from customers where location_id = 'kill-9'")).map(({ id }) => id);
    const events = await query<{ customer_id: string; type: string }>("select customer_id, type from events where location_id = 'kill-9'");
    expect(answered.every((id) => customers.includes(id))).toBe(true);
    expect(events.every(({ type }) => type === 'customer.created')).toBe(true);
    // Exactly one event per committed customer, and none for a customer that did not commit.
    expect(events.map(({ customer_id }) => customer_id).sort()).toEqual([...customers].sort());
  }, 120_000);

  it('two replicas deliver every event exactly once; deliveries pending when all stopped are made by the next to start', async () => {
    const [first, second] = await Promise.all([start(), start()]);
    const token = await devClientToken(first.baseUrl);
    const receiver = await new WebhookReceiver().start();
    try {
      const endpoint = await api(first, token, 'replicas')('POST', '/v1/webhook-endpoints', { url: receiver.url(), enabledEvents: ['*'] });
      expect(endpoint.status).toBe(201);
      const secret = endpoint.body.secret as string;
      // Forty changes, half through each replica.
      await Promise.all(Array.from({ length: 40 }, (_, i) => api(i % 2 === 0 ? first : second, token, 'replicas')('POST', '/v1/customers', {})));
      const eventIds = async (): Promise<string[]> => (await query<{ id: string }>("select id from events where location_id = 'replicas'")).map(({ id }) => id);
      await eventually(async () => new Set(receiver.eventIds()).size === (await eventIds()).length);
      // Settled: let any duplicate that was coming arrive.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.eventIds().sort()).toEqual((await eventIds()).sort());
      for (const delivered of receiver.received) new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>);
      const byReplica = await query<{ count: string }>("select count(*) from webhook_delivery_attempts where location_id = 'replicas'");
      expect(Number(byReplica[0]?.count)).toBe(40);

      // The receiver goes down, changes are made, and every process stops before it is back.
      const port = receiver.portInUse;
      await receiver.stop();
      for (let i = 0; i < 5; i += 1) await api(first, token, 'replicas')('POST', '/v1/customers', {});
      await eventually(async () => (await query("select 1 from webhook_delivery_attempts where location_id = 'replicas' and outcome = 'FAILED'")).length >= 5);
      await Promise.all([first.stop(), second.stop()]);
      receiver.received.length = 0;
      await receiver.start(port);
      await start();
      await eventually(async () => new Set(receiver.eventIds()).size === 5);
      // A delivery's success is recorded once its answer is read, a moment after the receiver has it.
      const missed = () =>
        query<{ id: string }>(
          "select e.id from events e where e.location_id = 'replicas' and not exists (select 1 from webhook_delivery_attempts a where a.event_id = e.id and a.outcome = 'SUCCEEDED')",
        );
      await eventually(async () => (await missed()).length === 0, 10_000, 'every event recorded as delivered');
      expect(await missed()).toEqual([]);
    } finally {
      await receiver.stop();
    }
  }, 120_000);
});
