/**
 * `npm run bench`: the service's production build under load, beside its own
 * ceilings measured in the same run, so every figure is also a ratio that
 * survives a noisy machine. See docs/performance.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type pg from 'pg';
import path from 'node:path';
import { createBenchDatabase, withClient, type BenchDatabase } from './bench-database';
import { writeChart } from './chart';
import { CONSUMABLE_RATE_BOUND, consumableStatements, type Consumable } from './consumables';
import { measureLoad, type LoadFigures, type LoadRequest } from './load';
import { parseBenchOptions, type BenchOptions } from './options';
import { DEFAULT_LOCATION_COUNT, seededCustomer, useLocationCount } from './ids';
import { EVENTS_PER_CUSTOMER, PAST_INTENTS_PER_CUSTOMER, seedHistory } from './history-seed';
import { LIST_READS, listRequest } from './list-requests';
import { measureErasureAtSize, measurePurgeAtSize } from './growth-maintenance';
import { measureOverloadPhase } from './overload';
import { percentileOf } from './percentile';
import { startLagReceiver, type LagReceiver } from './webhook-lag';
import { runPgbench } from './pgbench';
import type { RunningServer } from './processes';
import { markdownReport } from './report';
import { RoundsOfOneFigure } from './rounds';
import { allLoads, overloadFailures, webhookFailures, type BenchResults } from './results';
import { BENCH_ENDPOINT_HOST, SCENARIOS, consumingRequests, scenarioRequests, type ConsumingScenarioId } from './scenarios';
import { seedCustomers } from './seed';
import { startSizedServer, type ServerLogCounts, type SizedServer } from './sized-server';
import { statementCostPerRequest } from './statement-costs';
import { DAY_OF_BACKLOG, webhookBacklogReport } from './webhook-backlog';
import { webhookDeliveryReport } from './webhook-delivery';
import { jobQueueReport } from './job-queue-comparison';
import { accessToken, benchCredentials, startBareExpress, startHandWritten, startService, type BenchCredentials } from './servers';

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
/** Rate limiting stays on, so its cost is in every figure, with a budget no run spends. */
const UNSPENT_RATE_LIMIT = 1_000_000_000;
const GROWTH_FROM = 10_000;
/** A --growth run's locations: a year's customers of many restaurants. */
const GROWTH_LOCATIONS = 1_000;
/** The webhook figures of a --growth run: events each of WEBHOOK_ENDPOINTS endpoints receives for the deliveries a second. */
const WEBHOOK_THROUGHPUT_EVENTS = 3_000;
const WEBHOOK_ENDPOINTS = 10;
/** How long the writes run alone, and beside an erasure or the purge, at the large size. */
const MAINTENANCE_SECONDS = 20;
/** Seconds the dispatcher gets to deliver a turn's events once its load stops, before they count as pending. */
const WEBHOOK_DRAIN_SECONDS = 120;
/** Seconds the service gets to fan out what one scenario's turns left in the outbox before the next scenario starts. */
const SCENARIO_DRAIN_SECONDS = 900;
/** The tables the scenarios and the consumables' seeding write, vacuumed and analyzed before measuring on them. */
const WRITTEN_TABLES =
  'customers, payment_methods, default_payment_methods, payment_intents, refunds, events, event_outbox, webhook_deliveries, sandbox_processor_operations';
/** The overload scenario's OVERLOAD_MAX_IN_FLIGHT, per connection of the load a process sustains (docs/deployment.md, Load shedding). */
const OVERLOAD_IN_FLIGHT_PER_CONNECTION = 1;
/** The overload scenario's OVERLOAD_REPEAT_HOLD_MS: the service's default, stated so the report can name it. */
const OVERLOAD_REPEAT_HOLD_MS = 100;
const OVERLOAD_WARMUP_SECONDS = 3;
/** WEB_CONCURRENCY of the cluster measured against one process. */
const CLUSTER_WORKERS = 2;

const say = (line: string): void => void process.stderr.write(`bench: ${line}\n`);

async function seed(database: BenchDatabase, from: number, to: number): Promise<number> {
  const started = performance.now();
  await withClient(database.url, (client) =>
    seedCustomers(
      (sql) => client.query(sql),
      from,
      to,
      (done) => say(`seeded ${done.toLocaleString('en-US')} customers`),
    ),
  );
  return (performance.now() - started) / 1000;
}

interface Context {
  options: BenchOptions;
  database: BenchDatabase;
  credentials: BenchCredentials;
  stops: Array<() => Promise<void>>;
  /** The cluster of the run's own, under --shared-buffers. */
  server?: SizedServer;
  /** The first customer number no consuming scenario has taken yet (past the seeded ones). */
  nextConsumable: number;
}

/** How a turn of `seconds` (warm-up included) gets its requests: one generator for every turn, or rows seeded for this turn alone. */
type RequestSource = (seconds: number) => Promise<() => LoadRequest>;

const always =
  (next: () => LoadRequest): RequestSource =>
  () =>
    Promise.resolve(next);

/** Seeds a fresh range of customers for one turn of a consuming scenario, and draws from it (consumables.ts). */
function consumingSource(context: Context, scenario: ConsumingScenarioId, kind: Consumable, token: string): RequestSource {
  return async (seconds) => {
    const from = context.nextConsumable;
    const to = from + CONSUMABLE_RATE_BOUND * seconds - 1;
    context.nextConsumable = to + 1;
    await withClient(context.database.url, async (client) => {
      await client.query('begin');
      for (const statement of consumableStatements(kind, from, to)) await client.query(statement);
      await client.query('commit');
      await client.query(`vacuum analyze ${WRITTEN_TABLES}`);
    });
    return consumingRequests(scenario, from, to, token);
  };
}

/**
 * Scenario 8's endpoints, removed before each of its turns (each creates into
 * the same table) and before each later scenario and phase (quiesce), so that
 * no later event fans out to them: not right after its last turn, when
 * creates still in flight at the service would land after the removal.
 */
async function removeBenchEndpoints(context: Context): Promise<void> {
  await withClient(context.database.url, (client) => client.query(`delete from webhook_endpoints where url like 'https://${BENCH_ENDPOINT_HOST}/%'`));
}

function endpointSource(context: Context, next: () => LoadRequest): RequestSource {
  return async () => {
    await removeBenchEndpoints(context);
    return next;
  };
}

function scenarioSource(context: Context, scenario: (typeof SCENARIOS)[number], token: string, requests: ReturnType<typeof scenarioRequests>): RequestSource {
  if ('consumes' in scenario) return consumingSource(context, scenario.id, scenario.consumes, token);
  if (scenario.id === 8) return endpointSource(context, requests[8]);
  return always(requests[scenario.id]);
}

async function startTracked(context: Context, start: () => Promise<RunningServer>): Promise<RunningServer> {
  const server = await start();
  context.stops.push(server.stop);
  return server;
}

/** `node --cpu-prof` into its own folder per server under --profile, so the service's profile can be read beside (b)'s. */
function profilerArgs(context: Context, server: string): string[] {
  return context.options.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(RESULTS_DIR, 'profiles', server)}`] : [];
}

/**
 * The service's DB_POOL_MAX is per process: a cluster's workers split the
 * bench's, so that one process and two workers put the same number of
 * connections on PostgreSQL (twice as many cost the server CPU, measured).
 */
function poolPerProcess(context: Context, webConcurrency: number): number {
  return Math.ceil(context.options.dbPoolMax / webConcurrency);
}

function serviceSettings(context: Context, webConcurrency: number) {
  return {
    databaseUrl: context.database.url,
    credentials: context.credentials,
    resultsDir: RESULTS_DIR,
    webConcurrency,
    rateLimitRequests: UNSPENT_RATE_LIMIT,
    extraEnv: { DB_POOL_MAX: String(poolPerProcess(context, webConcurrency)) },
    nodeArgs: profilerArgs(context, 'service'),
  };
}

function measure(
  context: Context,
  server: RunningServer,
  connections: number,
  next: () => LoadRequest,
  warmup = true,
  onLatency?: (ms: number) => void,
): Promise<LoadFigures> {
  const { durationSeconds, warmupSeconds } = context.options;
  return measureLoad(
    { url: server.url, connections, durationSeconds, warmupSeconds: warmup ? warmupSeconds : 0, ...(onLatency && { onLatency }) },
    next,
    server.cpuMs,
  );
}

/**
 * Servers under the same load, in turns: each round runs each server once,
 * in order, for --rounds rounds (each warmed up once), so a slow spell of
 * the machine falls on all of them; each figure's throughput and CPU are the
 * medians of its rounds, its latency percentiles are taken over every answer
 * of its rounds (rounds.ts, withPooledLatencies).
 */
async function measureEachInTurns(
  context: Context,
  turns: ReadonlyArray<{ server: RunningServer; source: RequestSource }>,
  connections: number,
): Promise<LoadFigures[]> {
  const { rounds: roundCount, durationSeconds, warmupSeconds } = context.options;
  const measured = turns.map(() => new RoundsOfOneFigure());
  for (let round = 0; round < roundCount; round += 1) {
    for (const [index, { server, source }] of turns.entries()) {
      const warmup = round === 0;
      const next = await source(durationSeconds + (warmup ? warmupSeconds : 0));
      const turn = measured[index] as (typeof measured)[number];
      turn.add(await measure(context, server, connections, next, warmup, turn.hear));
    }
  }
  return measured.map((turn) => turn.figure());
}

/** Two servers under the same load in turns (measureEachInTurns): the service and a ceiling. */
async function measureInTurns(
  context: Context,
  servers: readonly [RunningServer, RunningServer],
  connections: number,
  source: RequestSource,
): Promise<[LoadFigures, LoadFigures]> {
  const [first, second] = await measureEachInTurns(
    context,
    servers.map((server) => ({ server, source })),
    connections,
  );
  if (!first || !second) throw new Error('measureEachInTurns answered fewer figures than servers');
  return [first, second];
}

/**
 * Before each scenario and phase, with the service that fans out running:
 * scenario 8's endpoints gone, the outbox fanned out, the written tables
 * vacuumed and analyzed, and a checkpoint, so that what the previous
 * scenario's writes left to do (the dispatcher's fan-out and deliveries,
 * autovacuum, dirty pages) does not fall on this one's figures. Measured:
 * scenario 5 after scenarios 3 and 4 at 100,000 customers lost about a fifth
 * of its req/s without it; and the webhook phase after scenario 8 @128 had
 * 108 of its endpoints left (creates still in flight when the turn's removal
 * ran), whose failing deliveries held the dispatcher's slots: lag p50 5.4 s.
 */
async function quiesce(context: Context): Promise<void> {
  await removeBenchEndpoints(context);
  // The erasure's turns leave hundreds of thousands of events (both servers write outbox rows) for the service to fan out.
  if (!(await waitFor(context, SCENARIO_DRAIN_SECONDS, outboxIsEmpty))) throw new Error('the outbox did not empty between scenarios');
  await withClient(context.database.url, async (client) => {
    await client.query(`vacuum analyze ${WRITTEN_TABLES}`);
    // A server role without the right to (pg_checkpoint, or superuser) skips it.
    await client.query('checkpoint').catch(() => undefined);
  });
}

/** Scenarios 1–6 on the service and the hand-written ceiling, (a) and (c), at each connection count. */
async function measureScenarios(context: Context, results: BenchResults): Promise<string> {
  const { options } = context;
  const service = await startTracked(context, () => startService(serviceSettings(context, 1)));
  const token = await accessToken(service);
  const requests = scenarioRequests(options.customers, token);
  const sample = requests[1]();
  const sampleBody = await (await fetch(`${service.url}${sample.path}`, { headers: sample.headers })).text();
  const jwks = await (await fetch(`${service.url}/.well-known/jwks.json`)).text();
  const handWritten = await startTracked(context, () =>
    startHandWritten(RESULTS_DIR, context.database.url, jwks, options.dbPoolMax, profilerArgs(context, 'hand-written')),
  );
  const bare = await startTracked(context, () => startBareExpress(RESULTS_DIR, sampleBody));

  for (const connections of options.connections) {
    say(`(a) bare Express @${connections}`);
    const bareFigure = new RoundsOfOneFigure();
    bareFigure.add(await measure(context, bare, connections, requests[1], true, bareFigure.hear));
    results.bareExpress.push(bareFigure.figure());
    for (const scenario of SCENARIOS.filter(({ id }) => options.scenarios.includes(id))) {
      await quiesce(context);
      say(`scenario ${scenario.id} (${scenario.name}) @${connections}`);
      const source = scenarioSource(context, scenario, token, requests);
      const [handWrittenFigures, serviceFigures] = await measureInTurns(context, [handWritten, service], connections, source);
      results.runs.push({ scenario: scenario.id, name: scenario.name, handWritten: handWrittenFigures, service: serviceFigures });
    }
  }
  // At the service's own number of database connections: the most it can put on the server at once.
  say(`(c) pgbench with ${options.dbPoolMax} clients`);
  results.pgbench.push(await runPgbench(context.database.url, options.customers, options.dbPoolMax, options.durationSeconds));
  results.servicePeakRssMb = service.peakRssMb();
  for (const server of [service, handWritten, bare]) await server.stop();
  context.stops.length = 0;
  return token;
}

/** Scenario 1 with two workers, in turns with one process, so the ratio is of figures measured side by side. */
async function measureCluster(context: Context, results: BenchResults): Promise<void> {
  const single = await startTracked(context, () => startService(serviceSettings(context, 1)));
  const cluster = await startTracked(context, () => startService(serviceSettings(context, CLUSTER_WORKERS)));
  const requests = scenarioRequests(context.options.customers, await accessToken(cluster));
  const figures: NonNullable<BenchResults['cluster']>['figures'] = [];
  for (const connections of context.options.connections) {
    say(`scenario 1 with WEB_CONCURRENCY=2 and with one process @${connections}`);
    const [one, two] = await measureInTurns(context, [single, cluster], connections, always(requests[1]));
    figures.push({ single: one, cluster: two });
  }
  results.cluster = { figures, peakRssMbPerProcess: cluster.peakRssMb(), dbPoolMaxPerWorker: poolPerProcess(context, CLUSTER_WORKERS) };
  for (const server of [single, cluster]) await server.stop();
  context.stops.length = 0;
}

/** Scenario 1 on the service under another node binary, in turns with this one's: a runtime's ratio from one run. */
async function measureNodeComparison(context: Context, results: BenchResults, otherNode: string): Promise<void> {
  const otherVersion = execFileSync(otherNode, ['--version'], { encoding: 'utf8' }).trim();
  const service = await startTracked(context, () => startService(serviceSettings(context, 1)));
  const other = await startTracked(context, () => startService({ ...serviceSettings(context, 1), nodeBinary: otherNode }));
  const requests = scenarioRequests(context.options.customers, await accessToken(service));
  results.nodeComparison = [];
  for (const connections of context.options.connections) {
    say(`scenario 1 on node ${process.version} and on node ${otherVersion} @${connections}`);
    const [mine, theirs] = await measureInTurns(context, [service, other], connections, always(requests[1]));
    results.nodeComparison.push({ node: process.version, otherNode: otherVersion, service: mine, otherService: theirs });
  }
  for (const server of [service, other]) await server.stop();
  context.stops.length = 0;
}

/**
 * Overload: scenario 1 at the first connection count (what a process
 * sustains: its throughput is reached there), then at four times as many,
 * then at the first again at once, on a service whose OVERLOAD_MAX_IN_FLIGHT
 * is the sustained count: what docs/deployment.md's tuning rule gives (twice it let the
 * served p99 reach about 3× the sustained one: Little's law, twice the queue).
 */
async function measureOverload(context: Context, results: BenchResults): Promise<void> {
  const { options } = context;
  const sustained = options.connections[0] ?? 32;
  const maxInFlight = OVERLOAD_IN_FLIGHT_PER_CONNECTION * sustained;
  const settings = serviceSettings(context, 1);
  const service = await startTracked(context, () =>
    startService({
      ...settings,
      extraEnv: { ...settings.extraEnv, OVERLOAD_MAX_IN_FLIGHT: String(maxInFlight), OVERLOAD_REPEAT_HOLD_MS: String(OVERLOAD_REPEAT_HOLD_MS) },
    }),
  );
  await quiesce(context);
  const next = scenarioRequests(options.customers, await accessToken(service))[1];
  // At least 3 s: the sustained phase is the reference the surge's p99 is read against.
  await measureOverloadPhase(service.url, sustained, Math.max(options.warmupSeconds, OVERLOAD_WARMUP_SECONDS), next);
  const phases: NonNullable<BenchResults['overload']>['phases'] = [];
  for (const [phase, connections] of [
    ['sustained', sustained],
    ['four times the connections', 4 * sustained],
    ['load dropped back', sustained],
  ] as const) {
    say(`overload: ${phase} @${connections}`);
    phases.push({ phase, figures: await measureOverloadPhase(service.url, connections, options.durationSeconds, next) });
  }
  results.overload = { maxInFlight, repeatHoldMs: OVERLOAD_REPEAT_HOLD_MS, phases };
  await service.stop();
  context.stops.length = 0;
}

/** Polls `done` (a query on the bench's database) every 100 ms until it holds or `seconds` pass; whether it held. */
async function waitFor(context: Context, seconds: number, done: (client: pg.Client) => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  return withClient(context.database.url, async (client) => {
    while (!(await done(client))) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return true;
  });
}

const outboxIsEmpty = async (client: pg.Client) => (await client.query('select 1 from event_outbox limit 1')).rowCount === 0;

/** `count` endpoints, one per bench location from the first, every event type, all at the receiver, made through the API. */
async function createLagEndpoints(
  service: RunningServer,
  token: string,
  receiverUrl: string,
  count: number,
): Promise<Array<{ locationId: string; id: string }>> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const locationId = `bench-location-${index}`;
      const response = await fetch(`${service.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': locationId, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: receiverUrl, enabledEvents: ['*'], description: 'bench: webhook lag' }),
      });
      if (response.status !== 201) throw new Error(`creating a webhook endpoint answered ${response.status}: ${await response.text()}`);
      return { locationId, id: ((await response.json()) as { id: string }).id };
    }),
  );
}

/** The issue's one endpoint (one location's events), then one per location: every event of the mix delivered. */
const WEBHOOK_ENDPOINT_COUNTS = [1, DEFAULT_LOCATION_COUNT] as const;

/**
 * A turn of the mix with `count` endpoints registered: the API's figures,
 * then, once every delivery of the turn is made, what the receiver saw. The
 * outbox is empty before (no earlier event is fanned out to them); the
 * endpoints are removed after.
 */
async function measureWebhookTurn(
  context: Context,
  load: { service: RunningServer; token: string; mix: () => LoadRequest; connections: number },
  receiver: LagReceiver,
  count: number,
  warmup: boolean,
  api: RoundsOfOneFigure,
) {
  const { service, token, mix, connections } = load;
  if (!(await waitFor(context, WEBHOOK_DRAIN_SECONDS, outboxIsEmpty))) throw new Error('the outbox did not empty between turns');
  const endpoints = await createLagEndpoints(service, token, receiver.url, count);
  receiver.reset();
  say(`webhook lag: the mix with ${count} endpoint${count === 1 ? '' : 's'} @${connections}`);
  api.add(await measure(context, service, connections, mix, warmup, api.hear));
  const ids = endpoints.map(({ id }) => id);
  await waitFor(
    context,
    WEBHOOK_DRAIN_SECONDS,
    async (client) =>
      (await outboxIsEmpty(client)) &&
      (await client.query(`select 1 from webhook_deliveries where endpoint_id = any($1::uuid[]) and status = 'PENDING' limit 1`, [ids])).rowCount === 0,
  );
  const counts = await withClient(context.database.url, (client) =>
    client.query<{ status: string; count: number }>(
      `select status, count(*)::int as count from webhook_deliveries where endpoint_id = any($1::uuid[]) group by status`,
      [ids],
    ),
  );
  const countOf = (status: string) => counts.rows.find((row) => row.status === status)?.count ?? 0;
  const seen = {
    delivered: countOf('SUCCEEDED'),
    failed: countOf('FAILED'),
    pending: countOf('PENDING'),
    duplicates: receiver.duplicates(),
    lags: receiver.lags(),
  };
  await withClient(context.database.url, (client) => client.query('delete from webhook_endpoints where id = any($1::uuid[])', [ids]));
  return seen;
}

/**
 * Webhook delivery under load: the mix (scenario 6) at the first connection
 * count in turns, with no endpoint, with one (the issue's: one location's
 * events) and with one per location (every event), all at one local
 * receiver, every type; each event's lag is read from its `createdAt` to its
 * arrival.
 */
async function measureWebhookLag(context: Context, results: BenchResults): Promise<void> {
  const { options } = context;
  const connections = options.connections[0] ?? 32;
  const receiver = await startLagReceiver();
  const settings = serviceSettings(context, 1);
  const service = await startTracked(context, () => startService({ ...settings, extraEnv: { ...settings.extraEnv, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } }));
  try {
    await quiesce(context);
    const token = await accessToken(service);
    const mix = scenarioRequests(options.customers, token)[6];
    const without = new RoundsOfOneFigure();
    const turns = WEBHOOK_ENDPOINT_COUNTS.map((endpoints) => ({
      endpoints,
      api: new RoundsOfOneFigure(),
      lags: [] as number[],
      delivered: 0,
      failed: 0,
      pending: 0,
      duplicates: 0,
    }));
    for (let round = 0; round < options.rounds; round += 1) {
      say(`webhook lag: the mix with no endpoint @${connections}`);
      without.add(await measure(context, service, connections, mix, round === 0, without.hear));
      for (const turn of turns) {
        const seen = await measureWebhookTurn(context, { service, token, mix, connections }, receiver, turn.endpoints, round === 0, turn.api);
        turn.lags.push(...seen.lags);
        turn.delivered += seen.delivered;
        turn.failed += seen.failed;
        turn.pending += seen.pending;
        turn.duplicates += seen.duplicates;
      }
    }
    results.webhookLag = {
      connections,
      withoutEndpoints: without.figure(),
      withEndpoints: turns.map(({ endpoints, api, lags, delivered, failed, pending, duplicates }) => ({
        endpoints,
        figures: api.figure(),
        delivered,
        failed,
        pending,
        duplicates,
        received: lags.length,
        lagP50Ms: percentileOf(lags, 50),
        lagP99Ms: percentileOf(lags, 99),
        lagMaxMs: percentileOf(lags, 100),
      })),
    };
  } finally {
    await service.stop();
    context.stops.length = 0;
    await receiver.close();
  }
}

/** The reads a --growth run measures in turns with the hand-written floor (the others have none). */
const GROWTH_SCENARIOS = [1, 2, 5] as const;

/** One size of a --growth run: its database, and the service and the hand-written floor over it. */
interface GrowthSize {
  label: 'small' | 'large';
  customers: number;
  database: BenchDatabase;
  service: RunningServer;
  handWritten: RunningServer;
  /** The bench client's token, from this size's service. */
  token: string;
  requests: ReturnType<typeof scenarioRequests>;
  step: GrowthStep;
}

type GrowthStep = NonNullable<BenchResults['growth']>[number];

/**
 * The reads at GROWTH_FROM customers and at growthTo customers, each
 * customer with the history a year adds (history-seed.ts: ten events and two
 * past intents a customer, a delivery per event), so that every list answers
 * a full page at both sizes, over GROWTH_LOCATIONS locations. Each size has
 * a database of its own on the same server, and a service and a
 * hand-written floor over it; every read is measured at both sizes in turns
 * (measureEachInTurns), so a slow spell of the machine falls on both sizes
 * alike: measured one size after the other, half an hour of seeding apart,
 * the machine's drift between them showed in the ratios (docs/performance.md,
 * Growth). Scenarios 1, 2 and 5 beside the
 * floor, the list reads of list-requests.ts alone; then the housekeeping at
 * the large size, beside its writes.
 */
async function measureGrowth(context: Context, results: BenchResults): Promise<void> {
  useLocationCount(GROWTH_LOCATIONS);
  const connections = context.options.connections[0] ?? 32;
  const smallDatabase = await createBenchDatabase(context.server?.url ?? context.options.serverUrl);
  try {
    const databases = [
      { label: 'small', customers: GROWTH_FROM, database: smallDatabase },
      { label: 'large', customers: context.options.growthTo, database: context.database },
    ] as const;
    for (const { database, customers } of databases) {
      results.seedSeconds += await seed(database, 1, customers);
      results.seedSeconds += await seedHistoryOf(database, 1, customers);
    }
    const sizes: GrowthSize[] = [];
    for (const { label, customers, database } of databases) sizes.push(await startGrowthSize(context, label, customers, database));
    for (const id of GROWTH_SCENARIOS) {
      say(`growth: scenario ${id} at both sizes, in turns with the floor @${connections}`);
      const figures = await measureEachInTurns(
        context,
        sizes.flatMap((size) => [size.service, size.handWritten].map((server) => ({ server, source: always(size.requests[id]) }))),
        connections,
      );
      for (const [index, size] of sizes.entries()) {
        const [service, floor] = [figures[2 * index], figures[2 * index + 1]];
        if (!service || !floor) throw new Error('measureEachInTurns answered fewer figures than servers');
        size.step.reads.push({
          name: `scenario ${id}`,
          figures: service,
          floor,
          ...(context.server && {
            cost: await statementCostPerRequest(size.database.url, size.service.url, size.requests[id]),
            floorCost: await statementCostPerRequest(size.database.url, size.handWritten.url, size.requests[id]),
          }),
        });
      }
    }
    for (const read of LIST_READS) {
      say(`growth: ${read.name} at both sizes, in turns @${connections}`);
      const reads = sizes.map((size) => ({ size, next: listRequest(read, size.customers, size.token) }));
      const figures = await measureEachInTurns(
        context,
        reads.map(({ size, next }) => ({ server: size.service, source: always(next) })),
        connections,
      );
      for (const [index, { size, next }] of reads.entries()) {
        size.step.reads.push({
          name: read.name,
          figures: figures[index] as LoadFigures,
          ...(context.server && { cost: await statementCostPerRequest(size.database.url, size.service.url, next) }),
        });
      }
    }
    for (const size of sizes) {
      size.step.peakRssMb = size.service.peakRssMb();
      if (size.label === 'small') await Promise.all([size.service.stop(), size.handWritten.stop()]);
    }
    const large = sizes.find((size) => size.label === 'large');
    if (large) await measureHousekeepingAtSize(context, results, large, connections);
    results.growth = sizes.map((size) => size.step);
  } finally {
    await Promise.allSettled(context.stops.map((stop) => stop()));
    context.stops.length = 0;
    await smallDatabase.drop();
  }
  if (context.options.webhooks) results.webhooksAtSize = await measureWebhooksAtSize(context, results.command);
}

/** A size's database read into shared buffers, and its service and hand-written floor started over it. */
async function startGrowthSize(context: Context, label: GrowthSize['label'], customers: number, database: BenchDatabase): Promise<GrowthSize> {
  const databaseMb = await databaseSizeMb(context, database);
  const service = await startTracked(context, () => startService({ ...serviceSettings(context, 1), databaseUrl: database.url, label }));
  const token = await accessToken(service);
  const jwks = await (await fetch(`${service.url}/.well-known/jwks.json`)).text();
  const handWritten = await startTracked(context, () => startHandWritten(RESULTS_DIR, database.url, jwks, context.options.dbPoolMax, [], label));
  return {
    label,
    customers,
    database,
    service,
    handWritten,
    token,
    requests: scenarioRequests(customers, token),
    step: {
      customers,
      locations: GROWTH_LOCATIONS,
      events: customers * EVENTS_PER_CUSTOMER,
      intents: customers * (1 + PAST_INTENTS_PER_CUSTOMER),
      reads: [],
      peakRssMb: 0,
      databaseMb,
    },
  };
}

/** The erasure and the retention purge at the large size, each beside the writes a year's housekeeping must not hold up: scenario 3, the upsert of a default, for random customers. */
async function measureHousekeepingAtSize(context: Context, results: BenchResults, large: GrowthSize, connections: number): Promise<void> {
  const writes = (seconds: number) =>
    measureLoad({ url: large.service.url, connections, durationSeconds: seconds, warmupSeconds: 0 }, large.requests[3], large.service.cpuMs);
  say('growth: erasing a customer with 10,000 events and 1,000 intents beside the writes');
  const erasureMark = context.server?.logMark();
  results.erasureAtSize = await measureErasureAtSize({
    databaseUrl: large.database.url,
    serviceUrl: large.service.url,
    token: large.token,
    locationId: seededCustomer(1).locationId,
    writes,
    seconds: MAINTENANCE_SECONDS,
  });
  results.erasureAtSize.serverLog = serverLogSince(context, erasureMark);
  say(`growth: purging the ${large.step.events.toLocaleString('en-US')} events of the history beside the writes`);
  const purgeMark = context.server?.logMark();
  results.purgeAtSize = await measurePurgeAtSize({ databaseUrl: large.database.url, writes, seconds: MAINTENANCE_SECONDS });
  results.purgeAtSize.serverLog = serverLogSince(context, purgeMark);
}

/**
 * Issue 42's webhook figures on the same server, beside the large size's
 * database: the dispatcher's deliveries a second, a day's backlog (the
 * claim's time as the table grows, and the drain beside nine healthy
 * endpoints), and graphile-worker on the same figures; each on a database of
 * its own (webhook-delivery.ts, webhook-backlog.ts, job-queue-comparison.ts).
 */
async function measureWebhooksAtSize(context: Context, command: string): Promise<string[]> {
  const serverUrl = context.server?.url ?? context.options.serverUrl;
  say(`growth: webhook deliveries a second, ${WEBHOOK_THROUGHPUT_EVENTS.toLocaleString('en-US')} events × ${WEBHOOK_ENDPOINTS} endpoints`);
  const throughput = await webhookDeliveryReport(serverUrl, WEBHOOK_THROUGHPUT_EVENTS, WEBHOOK_ENDPOINTS, command);
  say(`growth: a backlog of ${DAY_OF_BACKLOG.backlog.toLocaleString('en-US')} deliveries to one endpoint beside nine healthy ones`);
  const backlog = await webhookBacklogReport(serverUrl, DAY_OF_BACKLOG, command);
  say('growth: graphile-worker on the same figures');
  const jobQueue = await jobQueueReport(serverUrl, { events: WEBHOOK_THROUGHPUT_EVENTS, ...DAY_OF_BACKLOG }, command);
  return [...throughput, '', ...backlog, '', ...jobQueue];
}

/** What the sized server's log says since `mark`: none on DATABASE_URL's server, whose log is not the bench's. */
function serverLogSince(context: Context, mark: number | undefined): ServerLogCounts | undefined {
  return context.server && mark !== undefined ? context.server.logSince(mark) : undefined;
}

/**
 * A bench database's size in MB. On the sized server, first read whole into
 * shared_buffers (pg_prewarm), as a server in service holds what it reads:
 * the small size fits after its first seconds of load, and the large one
 * would take many minutes of load to warm.
 */
async function databaseSizeMb(context: Context, database: BenchDatabase): Promise<number> {
  return withClient(database.url, async (client) => {
    if (context.server) {
      await client.query('create extension if not exists pg_prewarm');
      await client.query(`select pg_prewarm(oid::regclass) from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'i')`);
    }
    const { rows } = await client.query<{ bytes: string }>('select pg_database_size(current_database()) bytes');
    return Math.round(Number(rows[0]?.bytes) / 2 ** 20);
  });
}

/** Seeds the history of customers from..to (history-seed.ts); answers the seconds it took. */
async function seedHistoryOf(database: BenchDatabase, from: number, to: number): Promise<number> {
  const started = performance.now();
  await withClient(database.url, (client) =>
    seedHistory(
      (sql) => client.query(sql),
      from,
      to,
      (done) => say(`seeded the history of ${done.toLocaleString('en-US')} customers`),
    ),
  );
  return (performance.now() - started) / 1000;
}

async function main(): Promise<number> {
  const options = parseBenchOptions(process.argv.slice(2));
  mkdirSync(RESULTS_DIR, { recursive: true });
  if (options.build) {
    say('building the production build (npm run build)');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const server = options.sharedBuffers === undefined ? undefined : await startSizedServer(options.sharedBuffers, { hugePages: options.hugePages });
  const database = await createBenchDatabase(server?.url ?? options.serverUrl).catch(async (error: unknown) => {
    await server?.close();
    throw error;
  });
  say(`database ${new URL(database.url).pathname.slice(1)} created (PostgreSQL ${database.serverVersion})`);
  const context: Context = {
    options,
    database,
    credentials: await benchCredentials(RESULTS_DIR),
    stops: [],
    nextConsumable: options.customers + 1,
    ...(server && { server }),
  };
  const interrupted = (): void => {
    say('interrupted: stopping servers and dropping the database');
    void Promise.allSettled(context.stops.map((stop) => stop()))
      .then(() => database.drop())
      .then(() => server?.close())
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  const results: BenchResults = {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: {
      cores: os.cpus().length,
      cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      postgres: database.serverVersion,
      ...(server && { postgresSettings: server.settings }),
    },
    settings: {
      customers: options.growth ? options.growthTo : options.customers,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      rounds: options.rounds,
      connections: options.connections,
      dbPoolMax: options.dbPoolMax,
    },
    seedSeconds: 0,
    runs: [],
    bareExpress: [],
    pgbench: [],
    servicePeakRssMb: 0,
  };
  try {
    if (options.growth) {
      await measureGrowth(context, results);
    } else {
      results.seedSeconds = await seed(database, 1, options.customers);
      await measureScenarios(context, results);
      if (options.overload) await measureOverload(context, results);
      if (options.webhooks) await measureWebhookLag(context, results);
      if (options.cluster) await measureCluster(context, results);
      if (options.compareNode !== undefined) await measureNodeComparison(context, results, options.compareNode);
    }
  } finally {
    await Promise.allSettled(context.stops.map((stop) => stop()));
    await database.drop();
    await server?.close();
  }

  const stamp = results.date.replace(/[:.]/g, '-');
  writeFileSync(path.join(RESULTS_DIR, `bench-${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeChart(results, RESULTS_DIR, stamp);
  process.stdout.write(`${markdownReport(results)}\n`);
  // The only failure: an answer that was not 2xx, or a connection error. Never a time.
  return allLoads(results).some(({ figures }) => figures.errors > 0 || figures.non2xx > 0) ||
    overloadFailures(results).length > 0 ||
    webhookFailures(results).length > 0
    ? 1
    : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
