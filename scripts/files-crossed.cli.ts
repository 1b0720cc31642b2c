// How many files of src/ a request's code runs through: a measure of how far
// one change reaches (issue 37's "files a keyed customer create, an event from
// write to delivery, and a confirm each cross"). V8's precise coverage counts
// the functions that ran between two snapshots; a file counts when any of its
// functions ran for the request. Run: `npx tsx scripts/files-crossed.cli.ts`.
import { Session } from 'node:inspector/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher';
import { createLogger } from '../src/platform/logger';
import '../test/support/secret-box-setup';
import { startTestApp, type TestApp } from '../test/support/test-app';

const SRC = `file://${path.resolve(__dirname, '../src')}/`;

interface Coverage {
  result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
}

async function filesRunBy(session: Session, work: () => Promise<unknown>): Promise<string[]> {
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await work();
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as unknown as Coverage;
  return result
    .filter(({ url, functions }) => url.startsWith(SRC) && functions.some((fn) => fn.ranges[0] !== undefined && fn.ranges[0].count > 0))
    .map(({ url }) => url.slice(SRC.length))
    .sort();
}

async function receiver(): Promise<{ server: Server; url: string; delivered: Promise<void> }> {
  let resolve: () => void = () => undefined;
  const delivered = new Promise<void>((done) => (resolve = done));
  const server = createServer((_request, response) => {
    response.end();
    resolve();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, delivered };
}

async function main(): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const testApp: TestApp = await startTestApp();
  const location = 'files-crossed';
  const as = testApp.as(location);
  const createCustomer = (key: string) =>
    request(testApp.app).post('/v1/customers').set(as).set('Idempotency-Key', key).send({ externalReferenceId: key, description: 'files crossed' });

  // Warm: every path once, so that a file's first-load code does not count.
  await createCustomer('warm-up');
  const customer = (await createCustomer('warm-up-2')).body as { id: string };
  const card = (
    await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(as)
      .send({
        type: 'CARD',
        card: { type: 'visa', lastFour: '4242', expiry: { month: '3', year: String(new Date().getUTCFullYear() + 2) } },
      })
  ).body as { id: string };
  const intent = () =>
    request(testApp.app)
      .post('/v1/payment-intents')
      .set(as)
      .send({ externalReferenceId: 'order-1', amount: 1000, currency: 'USD', captureMethod: 'AUTOMATIC', customerId: customer.id });
  const confirm = async (id: string) => {
    const answer = await request(testApp.app).post(`/v1/payment-intents/${id}/confirm`).set(as).send({ paymentMethodId: card.id });
    if (answer.status !== 200) throw new Error(`confirm answered ${answer.status}: ${answer.text}`);
  };
  await confirm(((await intent()).body as { id: string }).id);

  const hook = await receiver();
  await request(testApp.app)
    .post('/v1/webhook-endpoints')
    .set(as)
    .send({ url: hook.url, enabledEvents: ['customer.created'] });
  const dispatcher = new WebhookDispatcher(testApp.db.knex, createLogger({ level: 'silent' }), {
    retryScheduleSeconds: [5],
    timeoutMs: 5_000,
    pollIntervalMs: 60_000,
    concurrency: 4,
    disableAfterMs: 86_400_000,
    allowPrivateTargets: true,
  });

  const keyedCreate = await filesRunBy(session, () => createCustomer('measured'));
  const nextIntent = ((await intent()).body as { id: string }).id;
  const confirmed = await filesRunBy(session, () => confirm(nextIntent));
  const eventToDelivery = await filesRunBy(session, async () => {
    dispatcher.start();
    await request(testApp.app).post('/v1/customers').set(as).send({ externalReferenceId: 'delivered' });
    await Promise.race([hook.delivered, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('no delivery within 10 s')), 10_000))]);
    await dispatcher.stop();
  });
  hook.server.close();
  await testApp.close();

  for (const [name, files] of Object.entries({
    'a keyed customer create': keyedCreate,
    'an event from write to delivery': eventToDelivery,
    'a confirm': confirmed,
  })) {
    console.log(`${name}: ${files.length} files of src/`);
    console.log(`  ${files.join('\n  ')}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
