/**
 * `npm run bench:webhooks:job-queue`: graphile-worker, a maintained
 * PostgreSQL job queue, on the figures the service's own dispatcher is held
 * to (docs/performance.md, Growth): deliveries a second to a local receiver
 * with one and two workers, and a day's backlog of 100,000 deliveries to one
 * endpoint drained beside nine healthy ones (their lag p50 and p99). Each
 * delivery is a job sending the same signed request the dispatcher sends
 * (webhook-sender.ts), 16 at a time a worker as WEBHOOK_CONCURRENCY; the
 * backlog is run twice: with every job in the common pool, and with a named
 * queue per endpoint (graphile-worker's way to keep one endpoint from taking
 * every slot: its jobs run one at a time).
 *   --events N (jobs per endpoint for throughput, default 3000), --backlog N (default 100000),
 *   --rate N (healthy jobs a second, default 100), --drain-seconds S (default 60); DATABASE_URL (default the local server)
 */
import { parseArgs } from 'node:util';
import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from 'graphile-worker';
import { Pool } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { sendWebhook } from '../src/webhooks/webhook-sender';
import { newWebhookSecret, webhookHeaders } from '../src/webhooks/webhook-signature';
import { startEndpointReceiver } from './endpoint-receiver';
import { atRate, runScript } from './script';
import { benchServerUrl, createBenchDatabase } from './bench-database';
import { DAY_OF_BACKLOG } from './webhook-backlog';
import { percentileOf } from './percentile';

export interface JobQueueSettings {
  /** Jobs per endpoint for the throughput. */
  events: number;
  backlog: number;
  rate: number;
  drainSeconds: number;
}

const ENDPOINTS = 10;
const CONCURRENCY = 16;
const SECRET = newWebhookSecret();
/** graphile-worker logs every job at info: silent, as the dispatcher is at the bench's level. */
const logger = new Logger(() => () => undefined);

interface Delivery {
  endpoint: number;
  createdAt: string;
}

/**
 * A pool whose connections' errors (the database dropped at the end) are not
 * thrown, on the pool and on each client: graphile-worker warns of a pool
 * without both handlers, and installs its own.
 */
function quietPool(connectionString: string, max: number): Pool {
  const pool = new Pool({ connectionString, max });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Workers, each on a pool of its own that `stop` ends, so no idle connection outlives the run (the database is dropped after it). */
async function startWorkers(connectionString: string, count: number, port: number): Promise<{ stop(): Promise<void> }> {
  const deliver = async (payload: unknown): Promise<void> => {
    const body = JSON.stringify(payload);
    const sent = await sendWebhook(
      `http://127.0.0.1:${port}/endpoint-${(payload as Delivery).endpoint}`,
      webhookHeaders([SECRET], uuidv7(), Math.floor(Date.now() / 1000), body),
      body,
      { timeoutMs: 10_000, allowPrivate: true },
    );
    if (!sent.ok) throw new Error(`answered ${String(sent.statusCode)}`);
  };
  const pools = Array.from({ length: count }, () => quietPool(connectionString, CONCURRENCY + 1));
  const runners: Runner[] = await Promise.all(
    pools.map((pgPool) => run({ pgPool, concurrency: CONCURRENCY, noHandleSignals: true, pollInterval: 1000, logger, taskList: { deliver } })),
  );
  return {
    stop: async () => {
      await Promise.all(runners.map((runner) => runner.stop()));
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}

async function enqueue(utils: WorkerUtils, jobs: Array<{ endpoint: number; runAt?: Date; queue: boolean }>): Promise<void> {
  for (let start = 0; start < jobs.length; start += 5000) {
    await utils.addJobs(
      jobs.slice(start, start + 5000).map(({ endpoint, runAt, queue }) => ({
        identifier: 'deliver',
        payload: { endpoint, createdAt: (runAt ?? new Date()).toISOString() } satisfies Delivery,
        ...(runAt ? { runAt } : {}),
        ...(queue ? { queueName: `endpoint-${endpoint}` } : {}),
      })),
    );
  }
}

/** graphile-worker's throughput and backlog drain, as Markdown lines, on a database of its own on `serverUrl`; `command` is what reproduces them. */
export async function jobQueueReport(serverUrl: string, settings: JobQueueSettings, command: string): Promise<string[]> {
  const { events, backlog, rate, drainSeconds } = settings;
  const database = await createBenchDatabase(serverUrl);
  const receiver = await startEndpointReceiver();
  const utilsPool = quietPool(database.url, 2);
  const utils = await makeWorkerUtils({ pgPool: utilsPool, logger });
  const lines = [
    `graphile-worker 0.18.0: ${ENDPOINTS} endpoints on one local receiver, ${CONCURRENCY} jobs at a time a worker, PostgreSQL at ${new URL(database.url).host}; command: \`${command}\`.`,
    '',
    '| throughput | deliveries | seconds | deliveries/s |',
    '|---|---:|---:|---:|',
  ];
  try {
    await utils.migrate();
    for (const workers of [1, 2]) {
      receiver.lags.clear();
      const total = events * ENDPOINTS;
      await enqueue(
        utils,
        Array.from({ length: total }, (_, index) => ({ endpoint: index % ENDPOINTS, queue: false })),
      );
      const started = performance.now();
      const running = await startWorkers(database.url, workers, receiver.port);
      while ([...receiver.lags.values()].reduce((sum, list) => sum + list.length, 0) < total) await new Promise((resolve) => setTimeout(resolve, 20));
      const seconds = (performance.now() - started) / 1000;
      await running.stop();
      lines.push(
        `| ${workers} worker${workers > 1 ? 's' : ''} | ${total.toLocaleString('en-US')} | ${seconds.toFixed(1)} | ${Math.round(total / seconds).toLocaleString('en-US')} |`,
      );
    }
    lines.push(
      '',
      `| drain, ${drainSeconds} s, one worker, ${rate} jobs/s to nine healthy endpoints | backlog delivered | backlog deliveries/s | healthy delivered | healthy lag p50 ms | healthy lag p99 ms |`,
      '|---|---:|---:|---:|---:|---:|',
    );
    for (const queue of [false, true]) {
      receiver.lags.clear();
      await utils.withPgClient((client) => client.query('delete from graphile_worker._private_jobs'));
      const dayAgo = Date.now() - 86_400_000;
      await enqueue(
        utils,
        Array.from({ length: backlog }, (_, index) => ({ endpoint: 0, runAt: new Date(dayAgo + index), queue })),
      );
      const running = await startWorkers(database.url, 1, receiver.port);
      const { made, seconds } = await atRate(rate, drainSeconds, (n) => {
        const endpoint = 1 + (n % (ENDPOINTS - 1));
        return utils.addJob('deliver', { endpoint, createdAt: new Date().toISOString() } satisfies Delivery, {
          ...(queue ? { queueName: `endpoint-${endpoint}` } : {}),
        });
      });
      await running.stop();
      const healthy = Array.from({ length: ENDPOINTS - 1 }, (_, index) => receiver.lags.get(index + 1) ?? []).flat();
      const drained = receiver.lags.get(0)?.length ?? 0;
      lines.push(
        `| ${queue ? 'a named queue per endpoint' : 'one common pool'} (${made.toLocaleString('en-US')} healthy jobs made) | ${drained.toLocaleString('en-US')} | ${Math.round(drained / seconds).toLocaleString('en-US')} | ${healthy.length.toLocaleString('en-US')} | ${healthy.length > 0 ? percentileOf(healthy, 50).toFixed(0) : '–'} | ${healthy.length > 0 ? percentileOf(healthy, 99).toFixed(0) : '–'} |`,
      );
    }
  } finally {
    await utils.release();
    await utilsPool.end();
    receiver.close();
    await database.drop();
  }
  return lines;
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '3000' },
      backlog: { type: 'string', default: String(DAY_OF_BACKLOG.backlog) },
      rate: { type: 'string', default: String(DAY_OF_BACKLOG.rate) },
      'drain-seconds': { type: 'string', default: String(DAY_OF_BACKLOG.drainSeconds) },
    },
  });
  const settings = { events: Number(values.events), backlog: Number(values.backlog), rate: Number(values.rate), drainSeconds: Number(values['drain-seconds']) };
  runScript(() => jobQueueReport(benchServerUrl(), settings, `npm run bench:webhooks:job-queue -- ${process.argv.slice(2).join(' ')}`));
}
