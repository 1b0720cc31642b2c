/**
 * `npm run bench:webhooks`: how fast the webhook dispatcher delivers, and
 * that replicas never deliver an event twice. On a database of its own, N
 * events are seeded (with their outbox rows, as the API writes them) for E
 * endpoints at a local receiver that answers 204 at once; then 1, and then 2,
 * dispatchers (each with its own pool, as two replicas) deliver them all. It
 * prints deliveries per second and the duplicates the receiver saw.
 *   --events N (default 5000), --endpoints E (default 10), DATABASE_URL (default the local server)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase } from '../src/platform/db/database';
import { createLogger } from '../src/platform/logger';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher';
import { SecretBox, useSecretBox, withNewKey } from '../src/platform/secrets/secret-box';
import { newWebhookSecret } from '../src/webhooks/webhook-signature';
import { runScript } from './script';
import { benchServerUrl, createBenchDatabase } from './bench-database';

const LOCATION = 'bench-webhooks';

/** Deliveries a second with one and two dispatchers, as Markdown lines, on a database of its own on `serverUrl`; `command` is what reproduces them. */
export async function webhookDeliveryReport(serverUrl: string, events: number, endpoints: number, command: string): Promise<string[]> {
  // The service's keyring is set at start-up (server.ts); the endpoints' secrets here are stored in clear, which it opens as they are.
  useSecretBox(new SecretBox(withNewKey()));
  const database = await createBenchDatabase(serverUrl);
  const received = new Map<string, number>();
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const key = `${request.url} ${String(request.headers['webhook-id'])}`;
      received.set(key, (received.get(key) ?? 0) + 1);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  const setup = openDatabase({ databaseUrl: database.url, poolMax: 2, acquireTimeoutMs: 10_000, statementTimeoutMs: 0 }).knex;
  const logger = createLogger({ level: 'warn' });
  const lines = [
    `Webhook delivery: ${events.toLocaleString('en-US')} events × ${endpoints} endpoints on one local receiver, PostgreSQL at ${new URL(database.url).host}; command: \`${command}\`.`,
    '',
    '| dispatchers | deliveries | seconds | deliveries/s | duplicates |',
    '|---:|---:|---:|---:|---:|',
  ];
  try {
    await setup('webhook_endpoints').insert(
      Array.from({ length: endpoints }, (_, i) => ({
        location_id: LOCATION,
        id: uuidv7(),
        url: `http://127.0.0.1:${port}/endpoint-${i}`,
        enabled_events: ['*'],
        status: 'ENABLED',
        secret: newWebhookSecret(),
      })),
    );
    for (const dispatchers of [1, 2]) {
      received.clear();
      await setup.raw('truncate events, event_outbox, webhook_deliveries, webhook_delivery_attempts');
      const rows = Array.from({ length: events }, () => ({ id: uuidv7() }));
      for (let i = 0; i < rows.length; i += 1000) {
        const batch = rows.slice(i, i + 1000);
        await setup('events').insert(
          batch.map(({ id }) => ({ location_id: LOCATION, id, type: 'customer.created', customer_id: id, data: { object: { id }, previous: null } })),
        );
        await setup('event_outbox').insert(batch.map(({ id }) => ({ location_id: LOCATION, event_id: id })));
      }
      const pools = Array.from(
        { length: dispatchers },
        () => openDatabase({ databaseUrl: database.url, poolMax: 10, acquireTimeoutMs: 10_000, statementTimeoutMs: 0 }).knex,
      );
      const running = pools.map(
        (knex) =>
          new WebhookDispatcher(knex, logger, {
            retryScheduleSeconds: [1],
            timeoutMs: 10_000,
            pollIntervalMs: 10,
            concurrency: 16,
            disableAfterMs: 86_400_000,
            allowPrivateTargets: true,
          }),
      );
      const expected = events * endpoints;
      const started = performance.now();
      for (const dispatcher of running) dispatcher.start();
      while (received.size < expected) await new Promise((resolve) => setTimeout(resolve, 20));
      const seconds = (performance.now() - started) / 1000;
      await Promise.all(running.map((dispatcher) => dispatcher.stop()));
      await Promise.all(pools.map((knex) => knex.destroy()));
      const duplicates = [...received.values()].reduce((sum, count) => sum + count - 1, 0);
      lines.push(
        `| ${dispatchers} | ${expected.toLocaleString('en-US')} | ${seconds.toFixed(1)} | ${Math.round(expected / seconds).toLocaleString('en-US')} | ${duplicates} |`,
      );
    }
  } finally {
    await setup.destroy();
    receiver.close();
    await database.drop();
  }
  return lines;
}

if (require.main === module) {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '5000' }, endpoints: { type: 'string', default: '10' } } });
  runScript(() =>
    webhookDeliveryReport(benchServerUrl(), Number(values.events), Number(values.endpoints), `npm run bench:webhooks -- ${process.argv.slice(2).join(' ')}`),
  );
}
