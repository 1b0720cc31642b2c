/**
 * `npm run bench:webhooks:backlog`: the webhook dispatcher when one endpoint
 * was down for a day. On a database of its own: ten endpoints at ten
 * locations, all answered 204 at once by a local receiver.
 *
 * 1. The claim statement's time (median and p99 of `--claims` claims, each
 *    rolled back) as the deliveries table grows: empty; with `--delivered`
 *    rows delivered; and with a backlog of `--backlog` due deliveries to
 *    endpoint 0 besides.
 * 2. The drain: one dispatcher (the service's defaults: 16 in flight, 4 per
 *    endpoint) works the backlog off while the other nine endpoints' locations
 *    record `--rate` events a second through the service's own recordEvents;
 *    it reports the backlog's deliveries per second and the healthy
 *    endpoints' lag (arrival minus the event's createdAt) p50 and p99.
 *   DATABASE_URL (default the local server)
 */
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { recordEvents } from '../src/change-log/record-events';
import { openDatabase } from '../src/platform/db/database';
import { createLogger } from '../src/platform/logger';
import { claimDueDeliveries } from '../src/webhooks/webhook-deliveries.repository';
import { MAX_IN_FLIGHT_PER_ENDPOINT, WebhookDispatcher } from '../src/webhooks/webhook-dispatcher';
import { SecretBox, useSecretBox, withNewKey } from '../src/platform/secrets/secret-box';
import { newWebhookSecret } from '../src/webhooks/webhook-signature';
import { startEndpointReceiver } from './endpoint-receiver';
import { atRate, runScript } from './script';
import { benchServerUrl, createBenchDatabase, withClient } from './bench-database';
import { percentileOf as percentile } from './percentile';

export interface BacklogSettings {
  backlog: number;
  delivered: number;
  claims: number;
  /** Events a second recorded for the healthy endpoints during the drain. */
  rate: number;
  drainSeconds: number;
}

/** The day-long outage: the script's defaults, and what `npm run bench -- --growth` runs. */
export const DAY_OF_BACKLOG: BacklogSettings = { backlog: 100_000, delivered: 1_000_000, claims: 200, rate: 100, drainSeconds: 60 };

const ENDPOINTS = 10;
const CONCURRENCY = 16;
const location = (index: number) => `bench-webhooks-${index}`;

/** `perEndpoint` events at each of `endpoints`' locations, delivered (or due, a day old) to its endpoint, in SQL. */
async function seedDeliveries(databaseUrl: string, endpoints: Array<{ index: number; id: string }>, count: number, status: 'SUCCEEDED' | 'PENDING') {
  // A connection of its own: the pool's give up on a statement after its timeout's margin.
  await withClient(databaseUrl, async (client) => {
    for (const endpoint of endpoints) {
      for (let done = 0; done < count; done += 100_000) {
        await client.query(
          `with made as (
           insert into events (location_id, id, type, data, created_at)
           select $1, gen_random_uuid(), 'customer.created', '{"object": {}, "previous": null}', now() - interval '1 day'
             from generate_series(1, $2) n
           returning location_id, id
         )
         insert into webhook_deliveries (location_id, id, endpoint_id, event_id, status, attempts, next_attempt_at)
         select location_id, gen_random_uuid(), $3, id, $4, $5, now() - interval '1 day' + row_number() over () * interval '1 millisecond'
           from made`,
          [location(endpoint.index), Math.min(100_000, count - done), endpoint.id, status, status === 'SUCCEEDED' ? 1 : 0],
        );
      }
    }
    await client.query('vacuum analyze events, webhook_deliveries');
  });
}

/** The claim statement's time, each claim rolled back so every one sees the same table. */
async function claimTimes(db: Knex, claims: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < claims; i += 1) {
    await db
      .transaction(async (trx) => {
        const started = performance.now();
        await claimDueDeliveries(trx, { limit: CONCURRENCY, perEndpoint: MAX_IN_FLIGHT_PER_ENDPOINT, busy: new Map(), leaseMs: 40_000 });
        times.push(performance.now() - started);
        await trx.rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error && error.message.includes('Transaction rejected with non-error'))) throw error;
      });
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** The claim's times at each size and the drain, as Markdown lines, on a database of its own on `serverUrl`; `command` is what reproduces them. */
export async function webhookBacklogReport(serverUrl: string, settings: BacklogSettings, command: string): Promise<string[]> {
  const { backlog, delivered, rate, drainSeconds } = settings;
  // The service's keyring is set at start-up (server.ts); the endpoints' secrets here are stored in clear, which it opens as they are.
  useSecretBox(new SecretBox(withNewKey()));
  const database = await createBenchDatabase(serverUrl);
  const receiver = await startEndpointReceiver();
  const db = openDatabase({ databaseUrl: database.url, poolMax: 10, acquireTimeoutMs: 10_000, statementTimeoutMs: 0 }).knex;
  const lines = [
    `Webhook backlog: ${ENDPOINTS} endpoints at ${ENDPOINTS} locations on one local receiver, PostgreSQL at ${new URL(database.url).host}; command: \`${command}\`.`,
    '',
    '| claim statement, deliveries table | p50 ms | p99 ms |',
    '|---|---:|---:|',
  ];
  const claimRow = async (label: string) => {
    const { p50, p99 } = await claimTimes(db, settings.claims);
    lines.push(`| ${label} | ${p50.toFixed(2)} | ${p99.toFixed(2)} |`);
  };
  try {
    const endpoints = Array.from({ length: ENDPOINTS }, (_, index) => ({ index, id: uuidv7() }));
    for (const { index, id } of endpoints) {
      await db('webhook_endpoints').insert({
        location_id: location(index),
        id,
        url: `http://127.0.0.1:${receiver.port}/endpoint-${index}`,
        enabled_events: ['*'],
        status: 'ENABLED',
        secret: newWebhookSecret(),
      });
    }
    await claimRow('empty');
    await seedDeliveries(database.url, endpoints, delivered / ENDPOINTS, 'SUCCEEDED');
    await claimRow(`${delivered.toLocaleString('en-US')} delivered`);
    const [down, ...healthy] = endpoints as [(typeof endpoints)[number], ...typeof endpoints];
    await seedDeliveries(database.url, [down], backlog, 'PENDING');
    await claimRow(`${delivered.toLocaleString('en-US')} delivered, ${backlog.toLocaleString('en-US')} due to one endpoint`);

    // The drain: the down endpoint is back; the others' locations keep recording events, signalled as the API's are.
    const dispatcher = new WebhookDispatcher(db, createLogger({ level: 'warn' }), {
      retryScheduleSeconds: [60],
      timeoutMs: 10_000,
      pollIntervalMs: 1000,
      concurrency: CONCURRENCY,
      disableAfterMs: 86_400_000,
      allowPrivateTargets: true,
    });
    dispatcher.start();
    const { made: recorded, seconds } = await atRate(rate, drainSeconds, (n) => {
      const endpoint = healthy[n % healthy.length] as (typeof healthy)[number];
      return db.transaction((trx) =>
        recordEvents(trx, { locationId: location(endpoint.index), origin: { requestId: null, idempotencyKey: null, clientId: null } }, [
          { type: 'customer.created', customerId: null, object: { id: uuidv7() }, previous: null },
        ]),
      );
    });
    await dispatcher.stop();
    const healthyLags = healthy.flatMap(({ index }) => receiver.lags.get(index) ?? []);
    const drained = receiver.lags.get(down.index)?.length ?? 0;
    lines.push(
      '',
      `| drain, ${seconds.toFixed(0)} s, one dispatcher | backlog delivered | backlog deliveries/s | healthy events recorded | healthy delivered | healthy lag p50 ms | healthy lag p99 ms |`,
      '|---|---:|---:|---:|---:|---:|---:|',
      `| ${rate} events/s to nine healthy endpoints | ${drained.toLocaleString('en-US')} | ${Math.round(drained / seconds).toLocaleString('en-US')} | ${recorded.toLocaleString('en-US')} | ${healthyLags.length.toLocaleString('en-US')} | ${percentile(healthyLags, 50).toFixed(0)} | ${percentile(healthyLags, 99).toFixed(0)} |`,
    );
  } finally {
    await db.destroy();
    receiver.close();
    await database.drop();
  }
  return lines;
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      backlog: { type: 'string', default: String(DAY_OF_BACKLOG.backlog) },
      delivered: { type: 'string', default: String(DAY_OF_BACKLOG.delivered) },
      claims: { type: 'string', default: String(DAY_OF_BACKLOG.claims) },
      rate: { type: 'string', default: String(DAY_OF_BACKLOG.rate) },
      'drain-seconds': { type: 'string', default: String(DAY_OF_BACKLOG.drainSeconds) },
    },
  });
  const settings = {
    backlog: Number(values.backlog),
    delivered: Number(values.delivered),
    claims: Number(values.claims),
    rate: Number(values.rate),
    drainSeconds: Number(values['drain-seconds']),
  };
  runScript(() => webhookBacklogReport(benchServerUrl(), settings, `npm run bench:webhooks:backlog -- ${process.argv.slice(2).join(' ')}`));
}
