import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { onEventsRecorded } from '../../../src/change-log/events-recorded';
import { poolCounts, poolIsBusy } from '../../../src/platform/db/pool-pressure';
import { createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { webhookPayloadProblems } from '../../support/contract/openapi-contract';
import { startTestApp, type TestApp } from '../../support/test-app';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../../support/webhook-receiver';
import { MAX_IN_FLIGHT_PER_ENDPOINT, WebhookDispatcher, type DispatcherSettings } from '../../../src/webhooks/webhook-dispatcher';

/**
 * Deliveries as an integrator sees them: each verified with the
 * `standardwebhooks` package, retried on failure, stopped by a 410, signed
 * with two secrets during a rotation, redelivered on request, and caught up
 * after the receiver was down. The dispatcher is the service's own, over the
 * test's database, with a schedule of fractions of a second.
 */
let testApp: TestApp;
let dispatcher: WebhookDispatcher | undefined;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  testApp = await startTestApp();
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
  await Promise.all(receivers.splice(0).map((receiver) => receiver.stop()));
});
afterAll(() => testApp.close());

function startDispatcher(settings: Partial<DispatcherSettings> = {}): WebhookDispatcher {
  dispatcher = new WebhookDispatcher(testApp.db.knex, { debug: () => {}, info: () => {}, warn: () => {} } as never, {
    retryScheduleSeconds: [0.2, 0.2, 0.2],
    timeoutMs: 1000,
    pollIntervalMs: 20,
    concurrency: 16,
    disableAfterMs: 5 * 24 * 60 * 60 * 1000,
    allowPrivateTargets: true,
    ...settings,
  });
  dispatcher.start();
  return dispatcher;
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await new WebhookReceiver().start();
  receivers.push(started);
  return started;
}

async function endpoint(location: string, url: string, enabledEvents: string[] = ['*']): Promise<{ id: string; secret: string }> {
  const made = await request(testApp.app).post('/v1/webhook-endpoints').set(testApp.as(location)).send({ url, enabledEvents }).expect(201);
  return made.body as { id: string; secret: string };
}

function verify(secret: string, received: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
}

async function attemptsOf(location: string, endpointId: string, query = ''): Promise<Array<Record<string, unknown>>> {
  const response = await request(testApp.app).get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100${query}`).set(testApp.as(location)).expect(200);
  return (response.body.deliveries as Array<Record<string, unknown>>).reverse();
}

describe('webhook deliveries', () => {
  it('deliver an event this process recorded without waiting for the next poll (the poll here is ten minutes away)', async () => {
    const location = newLocation();
    const listening = await receiver();
    await endpoint(location, listening.url());
    const before = await createCustomer(testApp, location);
    startDispatcher({ pollIntervalMs: 600_000 });
    // The look at start delivers what was there; once it is in, the next poll is ten minutes away.
    await eventually(() => listening.received.length >= 1, 20_000, 'the delivery found by the look at start');
    const after = await createCustomer(testApp, location);
    await eventually(() => listening.received.length >= 2, 20_000, 'the delivery of the event recorded after it');
    const objects = listening.received.map((delivered) => (JSON.parse(delivered.body) as { data: { object: { id: string } } }).data.object.id);
    expect(objects).toEqual([before.id, after.id]);
  });

  it('deliver an event recorded while every pooled connection is taken soon after the connection is free, not at the next poll', async () => {
    const location = newLocation();
    const listening = await receiver();
    await endpoint(location, listening.url());
    // Heard before the dispatcher hears it: every connection of the pool (one under PGlite) is asked for as the dispatcher is woken.
    const { client } = testApp.db.knex;
    let held: Promise<unknown[]> | undefined;
    const unsubscribe = onEventsRecorded(() => {
      held ??= Promise.all(Array.from({ length: poolCounts(testApp.db.knex)?.max ?? 1 }, () => client.acquireConnection()));
    });
    // Given back once, whatever the test finds: held, they would keep the file's database from closing.
    const release = async () => {
      const connections = (await held) ?? [];
      held = Promise.resolve([]);
      for (const connection of connections) await client.releaseConnection(connection);
    };
    startDispatcher({ pollIntervalMs: 600_000 });
    // Its look at start finds nothing; the next poll is ten minutes away.
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      const customer = await createCustomer(testApp, location);
      expect(poolIsBusy(testApp.db.knex)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(listening.received).toHaveLength(0);
      await release();
      await eventually(() => listening.received.length >= 1, 20_000, 'the delivery of the event recorded while the pool was taken');
      expect((JSON.parse(listening.received[0]?.body ?? '{}') as { data: { object: { id: string } } }).data.object.id).toBe(customer.id);
    } finally {
      unsubscribe();
      await release();
    }
  });

  it('deliver each subscribed event once, signed as Standard Webhooks says, with the event as its body', async () => {
    const location = newLocation();
    const everything = await receiver();
    const customersOnly = await receiver();
    const all = await endpoint(location, everything.url());
    const some = await endpoint(location, customersOnly.url(), ['customer.created']);
    startDispatcher();
    const customer = await createCustomer(testApp, location);
    await saveCard(testApp, location, customer.id);

    await eventually(() => everything.received.length >= 2 && customersOnly.received.length >= 1);
    const events = (await request(testApp.app).get('/v1/events').set(testApp.as(location)).expect(200)).body.events.reverse();
    expect(everything.eventIds().sort()).toEqual(events.map((event: { id: string }) => event.id).sort());
    for (const delivered of everything.received) {
      const payload = verify(all.secret, delivered) as { id: string };
      expect(delivered.headers['webhook-id']).toBe(payload.id);
      expect(payload).toEqual(events.find((event: { id: string }) => event.id === payload.id));
      expect(delivered.headers['content-type']).toBe('application/json');
      // As the document's `webhooks` entry for its type describes it.
      expect(webhookPayloadProblems(delivered.body)).toEqual([]);
    }
    expect(customersOnly.received.map((delivered) => (verify(some.secret, delivered) as { type: string }).type)).toEqual(['customer.created']);
    // Another endpoint's secret does not verify.
    expect(() => verify(some.secret, everything.received[0] as ReceivedWebhook)).toThrow();
    // Once each: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(everything.received).toHaveLength(2);
    expect((await attemptsOf(location, all.id)).map(({ outcome, statusCode, attempt }) => ({ outcome, statusCode, attempt }))).toEqual([
      { outcome: 'SUCCEEDED', statusCode: 200, attempt: 1 },
      { outcome: 'SUCCEEDED', statusCode: 200, attempt: 1 },
    ]);
  });

  it('retry a 500 and a timeout on the schedule, recording each attempt, until one succeeds', async () => {
    const location = newLocation();
    const flaky = await receiver();
    let calls = 0;
    flaky.answer = () => {
      calls += 1;
      return calls === 1 ? { status: 500 } : calls === 2 ? { status: 200, delayMs: 1500 } : { status: 204 };
    };
    const made = await endpoint(location, flaky.url());
    startDispatcher({ timeoutMs: 500 });
    await createCustomer(testApp, location);

    await eventually(async () => (await attemptsOf(location, made.id)).some(({ outcome }) => outcome === 'SUCCEEDED'));
    const attempts = await attemptsOf(location, made.id);
    expect(attempts.map(({ attempt, outcome, statusCode }) => ({ attempt, outcome, statusCode }))).toEqual([
      { attempt: 1, outcome: 'FAILED', statusCode: 500 },
      { attempt: 2, outcome: 'FAILED', statusCode: null },
      { attempt: 3, outcome: 'SUCCEEDED', statusCode: 204 },
    ]);
    expect(attempts[0]?.error).toBe('answered 500');
    expect(attempts[1]?.error).toMatch(/timed out after 500 ms/);
    // One event, three attempts of the same webhook-id.
    expect(new Set(flaky.eventIds()).size).toBe(1);
    const failed = await attemptsOf(location, made.id, '&outcome=FAILED');
    expect(failed.map(({ attempt }) => attempt)).toEqual([1, 2]);
  });

  it('fail a delivery once the schedule is spent, and disable an endpoint at once on a 410', async () => {
    const location = newLocation();
    const broken = await receiver();
    broken.answer = () => ({ status: 503 });
    const gone = await receiver();
    gone.answer = () => ({ status: 410 });
    const brokenEndpoint = await endpoint(location, broken.url());
    const goneEndpoint = await endpoint(location, gone.url());
    startDispatcher({ retryScheduleSeconds: [0.1, 0.1] });
    await createCustomer(testApp, location);

    await eventually(
      async () => (await testApp.db.knex('webhook_deliveries').where({ location_id: location, endpoint_id: brokenEndpoint.id, status: 'FAILED' })).length === 1,
    );
    expect(broken.received).toHaveLength(3);
    const disabled = await request(testApp.app).get(`/v1/webhook-endpoints/${goneEndpoint.id}`).set(testApp.as(location)).expect(200);
    expect(disabled.body).toMatchObject({ status: 'DISABLED', disabledReason: 'GONE' });
    expect(gone.received).toHaveLength(1);
    // A disabled endpoint gets nothing more.
    await createCustomer(testApp, location);
    await eventually(() => broken.received.length >= 4);
    expect(gone.received).toHaveLength(1);
  });

  it('disable an endpoint that has failed every attempt for WEBHOOK_DISABLE_AFTER_DAYS', async () => {
    const location = newLocation();
    const failing = await receiver();
    failing.answer = () => ({ status: 500 });
    const made = await endpoint(location, failing.url());
    await testApp.db
      .knex('webhook_endpoints')
      .where({ location_id: location, id: made.id })
      .update({ failing_since: new Date(Date.now() - 6 * 24 * 3_600_000) });
    startDispatcher();
    await createCustomer(testApp, location);
    await eventually(async () => (await request(testApp.app).get(`/v1/webhook-endpoints/${made.id}`).set(testApp.as(location))).body.status === 'DISABLED');
    const read = await request(testApp.app).get(`/v1/webhook-endpoints/${made.id}`).set(testApp.as(location)).expect(200);
    expect(read.body.disabledReason).toBe('FAILING');
  });

  it('carry two signatures after a rotation, each verifying with its own secret', async () => {
    const location = newLocation();
    const listener = await receiver();
    const made = await endpoint(location, listener.url());
    const rotated = await request(testApp.app).post(`/v1/webhook-endpoints/${made.id}/rotate-secret`).set(testApp.as(location)).expect(200);
    startDispatcher();
    await createCustomer(testApp, location);
    await eventually(() => listener.received.length === 1);
    const [delivered] = listener.received as [ReceivedWebhook];
    expect((delivered.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verify(made.secret, delivered)).toBeDefined();
    expect(verify(rotated.body.secret as string, delivered)).toBeDefined();
  });

  it('redeliver an event on request: to every subscribed endpoint, or to one, never to a disabled one', async () => {
    const location = newLocation();
    const first = await receiver();
    const second = await receiver();
    const one = await endpoint(location, first.url());
    const other = await endpoint(location, second.url());
    startDispatcher();
    await createCustomer(testApp, location);
    await eventually(() => first.received.length === 1 && second.received.length === 1);
    const [event] = (await request(testApp.app).get('/v1/events').set(testApp.as(location)).expect(200)).body.events;

    const toAll = await request(testApp.app).post(`/v1/events/${event.id}/redeliver`).set(testApp.as(location)).expect(202);
    expect(toAll.body.results).toBe(2);
    const toOne = await request(testApp.app).post(`/v1/events/${event.id}/redeliver`).set(testApp.as(location)).send({ endpointId: one.id }).expect(202);
    expect(toOne.body).toEqual({ results: 1, deliveries: [{ id: expect.any(String), endpointId: one.id, eventId: event.id }] });
    await eventually(() => first.received.length === 3 && second.received.length === 2);
    expect(new Set([...first.eventIds(), ...second.eventIds()])).toEqual(new Set([event.id]));

    await request(testApp.app).patch(`/v1/webhook-endpoints/${other.id}`).set(testApp.as(location)).send({ status: 'DISABLED' }).expect(200);
    const refused = await request(testApp.app).post(`/v1/events/${event.id}/redeliver`).set(testApp.as(location)).send({ endpointId: other.id }).expect(409);
    expect(refused.body.fieldName).toBe('endpointId');
    await request(testApp.app).post('/v1/events/019ab3c5-0a1b-7c2d-8e3f-405162738495/redeliver').set(testApp.as(location)).expect(404);
  });

  it('catch up after the receiver was down: every event arrives once it is back', async () => {
    const location = newLocation();
    const listener = await receiver();
    const made = await endpoint(location, listener.url());
    const port = listener.portInUse;
    await listener.stop();
    startDispatcher({ retryScheduleSeconds: [0.2, 0.3, 0.5, 1, 1, 1, 1, 1] });
    for (let i = 0; i < 3; i += 1) await createCustomer(testApp, location);
    await eventually(async () => (await attemptsOf(location, made.id, '&outcome=FAILED')).length >= 6);
    expect((await attemptsOf(location, made.id, '&outcome=FAILED'))[0]?.error).toMatch(/ECONNREFUSED/);

    await listener.start(port);
    await eventually(() => new Set(listener.eventIds()).size === 3);
    const events = (await request(testApp.app).get('/v1/events').set(testApp.as(location)).expect(200)).body.events as Array<{ id: string }>;
    expect(new Set(listener.eventIds())).toEqual(new Set(events.map(({ id }) => id)));
  });

  it('never hold an API request open, and a slow endpoint never holds up another', async () => {
    const location = newLocation();
    const slow = await receiver();
    slow.answer = () => ({ status: 200, delayMs: 3000 });
    const fast = await receiver();
    await endpoint(location, slow.url());
    await endpoint(location, fast.url());
    startDispatcher({ timeoutMs: 10_000 });
    for (let i = 0; i < 8; i += 1) await createCustomer(testApp, location);
    // Every API call has answered while the slow endpoint is still sitting on its first requests,
    // and the fast endpoint has had all eight meanwhile.
    await eventually(() => fast.received.length === 8);
    expect(slow.answered).toBe(0);
    expect(slow.received.length).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_ENDPOINT);
  });

  it('read at most 64 kB of an answer, and never follow a redirect', async () => {
    const location = newLocation();
    // A 200 whose body never ends: read whole, the attempt would run into the timeout and fail.
    const endless = await receiver();
    endless.answer = () => ({ status: 200, endless: true });
    const elsewhere = await receiver();
    const redirecting = await receiver();
    redirecting.answer = () => ({ status: 307, headers: { Location: elsewhere.url('/moved') } });
    const big = await endpoint(location, endless.url());
    const moved = await endpoint(location, redirecting.url());
    startDispatcher({ retryScheduleSeconds: [], timeoutMs: 5000 });
    await createCustomer(testApp, location);
    await eventually(async () => (await attemptsOf(location, big.id)).length === 1 && (await attemptsOf(location, moved.id)).length === 1);
    expect((await attemptsOf(location, big.id))[0]).toMatchObject({ outcome: 'SUCCEEDED', statusCode: 200 });
    expect((await attemptsOf(location, moved.id))[0]).toMatchObject({ outcome: 'FAILED', statusCode: 307, error: 'answered 307' });
    expect(redirecting.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('refuse private targets at delivery time where they are not allowed', async () => {
    const location = newLocation();
    const local = await receiver();
    // Made while allowed (http://127.0.0.1), then delivered by a dispatcher that allows only public https.
    const made = await endpoint(location, local.url());
    startDispatcher({ allowPrivateTargets: false, retryScheduleSeconds: [] });
    await createCustomer(testApp, location);
    await eventually(async () => (await attemptsOf(location, made.id)).length === 1);
    expect((await attemptsOf(location, made.id))[0]).toMatchObject({ outcome: 'FAILED', statusCode: null, error: expect.stringMatching(/^refused/) });
    expect(local.received).toHaveLength(0);
  });

  it('check the addresses a host name resolves to, at delivery time: a public-looking https URL naming a private host is refused', async () => {
    const location = newLocation();
    const local = await receiver();
    // https and a name, not an address: only resolving `localhost` shows it is loopback. Nothing is ever connected to.
    const made = await endpoint(location, `https://localhost:${local.portInUse}/hooks`);
    startDispatcher({ allowPrivateTargets: false, retryScheduleSeconds: [] });
    await createCustomer(testApp, location);
    await eventually(async () => (await attemptsOf(location, made.id)).length === 1);
    expect((await attemptsOf(location, made.id))[0]).toMatchObject({
      outcome: 'FAILED',
      statusCode: null,
      error: 'refused: localhost resolves to a non-public address',
    });
    expect(local.received).toHaveLength(0);
  });
});
