import 'dotenv/config';
// Before anything it instruments (express, pg, http) is loaded.
import { tracing } from './platform/tracing/start-tracing';
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, register as globalRegistry } from 'prom-client';
import { createApp } from './app';
import { buildModules } from './modules';
import { assembleAuth, authSettingsFrom, loadAuthMaterial } from './auth/auth';
import { refuseUnreadableConfigFiles } from './platform/config-files';
import { loadConfig, type Config } from './platform/config';
import { useSecretBox, type SecretBox } from './platform/secrets/secret-box';
import { keyringProblem, registerKeyring } from './platform/secrets/keys-in-use';
import { loadSecretBox } from './platform/secrets/secrets-keyring';
import { databaseOptionsFrom, migrationDatabaseOptionsFrom, openDatabase } from './platform/db/database';
import { migrateToLatest } from './platform/db/migration-source';
import { databaseStartupProblem } from './platform/db/startup-database-error';
import { createHttpServer } from './platform/http/http-server';
import { purgeExpiredIdempotencyKeys } from './idempotency/idempotency-keys.repository';
import { purgeExpiredEvents } from './change-log/event-retention';
import { schedulePurge } from './platform/lifecycle/purge-schedule';
import { sandboxRefundSettlesAfterMs } from './refunds/refund-sweeps';
import { serviceSettingsFrom } from './api/service-settings';
import { SandboxProcessor } from './payment-processor/sandbox-processor';
import { stopGracefullyOnSignals } from './platform/lifecycle/graceful-shutdown';
import { Readiness } from './platform/lifecycle/readiness';
import { createLogger, type Logger } from './platform/logger';
import { createMetrics } from './platform/metrics/metrics';
import { createMetricsServer, registryCollector } from './platform/metrics/metrics.server';

/** Applies pending migrations over a connection of their own, past the pooler when there is one. */
async function migrate(config: Config, logger: Logger): Promise<void> {
  const { knex } = openDatabase({ ...migrationDatabaseOptionsFrom(config, logger), poolMax: 1, statementTimeoutMs: 0 });
  try {
    logger.info({ applied: await migrateToLatest(knex) }, 'migrations applied');
  } finally {
    await knex.destroy();
  }
}

/**
 * A cluster's primary checks the database before it forks, whatever
 * MIGRATE_ON_START says: a database that refuses the login, or a keyring
 * that lacks a key in use, stops the start once, with its reason, rather
 * than in every worker the primary would fork again and again.
 */
async function checkDatabase(config: Config, logger: Logger, box: SecretBox): Promise<void> {
  const { knex } = openDatabase({ ...databaseOptionsFrom(config, logger), poolMax: 1 });
  try {
    await registerKeyring(knex, box);
  } finally {
    await knex.destroy();
  }
}

const IDEMPOTENCY_PURGE_INTERVAL_MS = 15 * 60 * 1000;
const EVENT_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** One process serving the API: alone (WEB_CONCURRENCY=1) or as a cluster worker. */
async function runWorker(config: Config, logger: Logger, box: SecretBox): Promise<void> {
  // Keys and clients first: a production misconfiguration stops start-up before anything opens.
  const { keys, clients } = await loadAuthMaterial(config);
  const { knex, kind } = openDatabase(databaseOptionsFrom(config, logger));
  const auth = assembleAuth(keys, clients, authSettingsFrom(config), knex);
  // A cluster's primary has migrated already. Alone, the pool migrates, unless a pooler stands in its way.
  if (config.MIGRATE_ON_START && cluster.isPrimary) {
    if (config.MIGRATIONS_DATABASE_URL === undefined) logger.info({ applied: await migrateToLatest(knex) }, 'migrations applied');
    else await migrate(config, logger);
  }
  // The database's first query, whatever MIGRATE_ON_START says: a refused login or a wrong keyring stops the start here.
  await registerKeyring(knex, box);
  const readiness = new Readiness(() => keyringProblem(knex, box));
  // Cluster workers register on prom-client's global registry, which the
  // primary aggregates; constructing an AggregatorRegistry in a worker is what
  // makes it answer the primary's requests.
  if (cluster.isWorker) new AggregatorRegistry();
  const metrics = createMetrics(knex, cluster.isWorker ? globalRegistry : undefined);
  // PAYMENT_PROCESSOR has one value for now: the sandbox.
  const processor = new SandboxProcessor(knex, {
    latencyMs: config.SANDBOX_LATENCY_MS,
    refundSettlesAfterMs: sandboxRefundSettlesAfterMs(config.SANDBOX_ASYNC_REFUND_SECONDS),
  });
  // Built once (src/modules.ts): the app's operations and the work beside them use the same services.
  const { services, background } = buildModules({ db: knex, processor, logger, settings: serviceSettingsFrom(config) });
  const app = createApp({
    db: knex,
    logger,
    auth,
    readiness,
    metrics,
    services,
    settings: {
      corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
      trustProxy: config.TRUST_PROXY,
      healthDatabaseTimeoutMs: config.HEALTH_DATABASE_TIMEOUT_MS,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      idempotency: {
        ttlSeconds: config.IDEMPOTENCY_KEY_TTL_SECONDS,
        lockTimeoutSeconds: config.IDEMPOTENCY_LOCK_TIMEOUT_SECONDS,
        statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      },
      rateLimit: { requests: config.RATE_LIMIT_REQUESTS, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS },
      loadShedding: {
        maxInFlight: config.OVERLOAD_MAX_IN_FLIGHT,
        maxEventLoopDelayMs: config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
        repeatHoldMs: config.OVERLOAD_REPEAT_HOLD_MS,
      },
    },
  });
  const server = createHttpServer(app, {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxHeaderSize: config.HTTP_MAX_HEADER_SIZE,
  });
  // Several replicas purging idempotency keys at once is harmless; expired events are purged by one at a time (event-retention.ts).
  schedulePurge(logger, 'expired idempotency keys', IDEMPOTENCY_PURGE_INTERVAL_MS, () => purgeExpiredIdempotencyKeys(knex));
  schedulePurge(logger, 'expired events', EVENT_PURGE_INTERVAL_MS, () => purgeExpiredEvents(knex, config.EVENT_RETENTION_DAYS));
  const metricsServer = config.METRICS_PORT > 0 && cluster.isPrimary ? createMetricsServer(registryCollector(metrics.registry)) : undefined;
  stopGracefullyOnSignals({
    server,
    readiness,
    db: knex,
    logger,
    drainMs: config.SHUTDOWN_DRAIN_SECONDS * 1000,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    alsoClose: metricsServer ? [metricsServer] : [],
    // Tracing last: it flushes the spans of what the others did.
    background: [...background, ...(tracing ? [tracing] : [])],
  });
  metricsServer?.listen(config.METRICS_PORT, config.HOST);
  server.listen(config.PORT, config.HOST, () => {
    // The bound port, which differs from PORT when PORT=0 asks for any free one.
    const { port } = server.address() as AddressInfo;
    logger.info({ port, host: config.HOST, database: kind, metricsPort: metricsServer ? config.METRICS_PORT : undefined }, 'listening');
    for (const work of background) work.start();
  });
}

/**
 * WEB_CONCURRENCY > 1: migrate once, fork the workers (they share the port),
 * serve their aggregated metrics, replace a worker that dies, and on SIGTERM
 * or SIGINT pass the signal on and exit once every worker has.
 */
async function runPrimary(config: Config, logger: Logger, box: SecretBox): Promise<void> {
  if (config.MIGRATE_ON_START) await migrate(config, logger);
  await checkDatabase(config, logger, box);
  let stopping = false;
  // Counted here, not read from cluster.workers: a worker that exits before its disconnect is seen
  // stays in cluster.workers during its 'exit', and the last one would never be found gone.
  const running = new Set<number>();
  const fork = (): void => {
    running.add(cluster.fork().id);
  };
  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker.id);
    if (stopping) {
      if (running.size === 0) {
        logger.info('all workers stopped');
        process.exit(0);
      }
      return;
    }
    logger.error({ workerPid: worker.process.pid, code, signal }, 'worker died; starting another');
    fork();
  });
  for (let index = 0; index < config.WEB_CONCURRENCY; index += 1) fork();

  const aggregator = new AggregatorRegistry();
  const metricsServer =
    config.METRICS_PORT > 0 ? createMetricsServer(async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() })) : undefined;
  metricsServer?.listen(config.METRICS_PORT, config.HOST);

  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: running.size }, 'shutting down the cluster');
    metricsServer?.close();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => process.exit(1), config.SHUTDOWN_DRAIN_SECONDS * 1000 + config.SHUTDOWN_TIMEOUT_MS + 10_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function main(): Promise<void> {
  const config = loadConfig();
  refuseUnreadableConfigFiles(config);
  const logger = createLogger({ level: config.LOG_LEVEL, pretty: config.NODE_ENV === 'development' && process.stdout.isTTY === true });
  // Before a cluster forks: the workers then read the development keyring the primary made.
  const box = loadSecretBox(config);
  useSecretBox(box);
  try {
    if (config.WEB_CONCURRENCY > 1 && cluster.isPrimary) return await runPrimary(config, logger, box);
    return await runWorker(config, logger, box);
  } catch (error) {
    // A database that stops the start: name the setting and what to check, not only the driver's words.
    const problem = databaseStartupProblem(error, config);
    throw problem === undefined ? error : new Error(problem);
  }
}

main().catch((error: unknown) => {
  // The logger may not exist yet (a bad configuration): say why on stderr and stop.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
