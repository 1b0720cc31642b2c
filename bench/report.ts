import type { CpuCost } from './machine-cpu';
import { allLoads, overloadFailures, webhookFailures, type BenchResults } from './results';
import { LOCK_WAIT_LIMIT_MS, type ServerLogCounts } from './sized-server';
import type { StatementCost } from './statement-costs';

const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');
const ms = (value: number): string => value.toFixed(value < 10 ? 1 : 0);
/**
 * The most requests per second these cores can answer when every request
 * costs the server, the load generator and PostgreSQL what it did: all cores'
 * time divided by the CPU of one request. On a machine that also runs the
 * load generator and the database, this and not the server bounds a cluster.
 */
export const coresAllow = (cores: number, cpu: CpuCost | undefined): number | undefined => {
  const perRequest = cpu === undefined ? 0 : cpu.serverMicros + cpu.loadGeneratorMicros + cpu.postgresMicros;
  return perRequest > 0 ? Math.round((cores * 1_000_000) / perRequest) : undefined;
};
const cpuCell = (cpu: CpuCost | undefined): string =>
  cpu === undefined ? '–' : `${cpu.serverMicros} / ${cpu.loadGeneratorMicros} / ${cpu.postgresMicros}, ${cpu.machineBusyPercent} %`;

/** The run as Markdown: what docs/performance.md shows. */
export function markdownReport(results: BenchResults): string {
  const { machine, settings } = results;
  const lines = [
    `Machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, PostgreSQL ${machine.postgres}${
      machine.postgresSettings
        ? ` (a cluster of the run's own: ${Object.entries(machine.postgresSettings)
            .map(([name, value]) => `${name}=${value}`)
            .join(', ')})`
        : ''
    }; load generator on the same machine.`,
    `Run: \`${results.command}\` on ${results.date}: ${settings.customers.toLocaleString('en-US')} customers (seeded in ${results.seedSeconds.toFixed(1)} s), ${settings.warmupSeconds} s warm-up, then ${settings.rounds === 1 ? `${settings.durationSeconds} s per figure` : `${settings.rounds} rounds of ${settings.durationSeconds} s in turns ${results.growth ? 'of both sizes and their floors' : 'with the ceiling'}, throughput and CPU are the medians of the rounds, latency percentiles are over every answer of them`}, DB_POOL_MAX=${settings.dbPoolMax}.`,
    '',
    '| # | scenario | conn | req/s | p50 ms | p90 ms | p99 ms | errors | non-2xx | CPU µs/req | hand-written req/s | p99 ms | CPU µs/req | req/s vs (b) | p99 vs (b) | req/s vs (a) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const run of results.runs) {
    const { service: s, handWritten: b } = run;
    const bare = results.bareExpress.find((figures) => figures.connections === s.connections);
    lines.push(
      `| ${run.scenario} | ${run.name} | ${s.connections} | ${s.requestsPerSecond} | ${ms(s.p50Ms)} | ${ms(s.p90Ms)} | ${ms(s.p99Ms)} | ${s.errors} | ${s.non2xx} | ${s.cpu?.serverMicros ?? '–'} | ${b.requestsPerSecond} | ${ms(b.p99Ms)} | ${b.cpu?.serverMicros ?? '–'} | ${ratio(s.requestsPerSecond, b.requestsPerSecond)} | ${ratio(s.p99Ms, b.p99Ms)} | ${ratio(s.requestsPerSecond, bare?.requestsPerSecond ?? 0)} |`,
    );
  }
  lines.push('', '| ceiling | conn | req/s (tps) | p99 ms (avg for pgbench) |', '|---|---:|---:|---:|');
  for (const bare of results.bareExpress)
    lines.push(`| (a) bare Express 5, JSON from memory | ${bare.connections} | ${bare.requestsPerSecond} | ${ms(bare.p99Ms)} |`);
  for (const pg of results.pgbench)
    lines.push(
      `| (c) pgbench, scenario 1's SELECT (clients = DB_POOL_MAX) | ${pg.connections} | ${pg.transactionsPerSecond} | ${ms(pg.averageLatencyMs)} avg |`,
    );
  // A --growth run restarts the service per step and measures no RSS.
  if (results.runs.length > 0) lines.push('', `Service peak RSS (VmHWM) over the whole run: ${results.servicePeakRssMb} MB.`);
  if (results.cluster) {
    lines.push(
      '',
      '| scenario 1, in turns | conn | one process req/s | WEB_CONCURRENCY=2 req/s | p99 ms | two workers vs one process | CPU µs/req, one process: service / load generator / PostgreSQL, cores busy | the same, two workers | most the cores allow two workers | reached |',
      '|---|---:|---:|---:|---:|---:|---|---|---:|---:|',
    );
    for (const { single, cluster } of results.cluster.figures) {
      const allowed = coresAllow(results.machine.cores, cluster.cpu);
      lines.push(
        `| two workers | ${cluster.connections} | ${single.requestsPerSecond} | ${cluster.requestsPerSecond} | ${ms(cluster.p99Ms)} | ${ratio(cluster.requestsPerSecond, single.requestsPerSecond)} | ${cpuCell(single.cpu)} | ${cpuCell(cluster.cpu)} | ${allowed === undefined ? '–' : `${allowed} req/s = ${ratio(allowed, single.requestsPerSecond)}`} | ${allowed === undefined ? '–' : `${Math.round((cluster.requestsPerSecond * 100) / allowed)} %`} |`,
      );
    }
    lines.push(
      '',
      `Two workers have DB_POOL_MAX=${results.cluster.dbPoolMaxPerWorker} each, the same connections in total as one process. Peak RSS per process with two workers: ${results.cluster.peakRssMbPerProcess} MB.`,
    );
  }
  if (results.nodeComparison) {
    lines.push(
      '',
      '| scenario 1, in turns | conn | req/s | p99 ms | CPU µs/req (service) | req/s, other node | p99 ms, other node | CPU µs/req, other node | this node / other node, req/s |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const { node, otherNode, service, otherService } of results.nodeComparison) {
      lines.push(
        `| ${node} vs ${otherNode} | ${service.connections} | ${service.requestsPerSecond} | ${ms(service.p99Ms)} | ${service.cpu?.serverMicros ?? '–'} | ${otherService.requestsPerSecond} | ${ms(otherService.p99Ms)} | ${otherService.cpu?.serverMicros ?? '–'} | ${ratio(service.requestsPerSecond, otherService.requestsPerSecond)} |`,
      );
    }
  }
  if (results.overload) {
    const [sustained] = results.overload.phases;
    lines.push(
      '',
      `Overload (OVERLOAD_MAX_IN_FLIGHT=${results.overload.maxInFlight}, OVERLOAD_REPEAT_HOLD_MS=${results.overload.repeatHoldMs}), scenario 1, answers timed one by one:`,
      '',
      '| phase | conn | served/s | shed/s (503) | served p50 ms | served p99 ms | served p99 vs sustained | shed p99 ms | first 503s of a connection | their p99 ms | 503s without Retry-After |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const { phase, figures } of results.overload.phases) {
      lines.push(
        `| ${phase} | ${figures.connections} | ${Math.round(figures.served / figures.seconds)} | ${Math.round(figures.shed / figures.seconds)} | ${ms(figures.servedP50Ms)} | ${ms(figures.servedP99Ms)} | ${ratio(figures.servedP99Ms, sustained?.figures.servedP99Ms ?? 0)} | ${figures.shed > 0 ? ms(figures.shedP99Ms) : '–'} | ${figures.firstShed} | ${figures.firstShed > 0 ? ms(figures.firstShedP99Ms) : '–'} | ${figures.shedWithoutRetryAfter} |`,
      );
    }
  }
  if (results.webhookLag) {
    const { connections, withoutEndpoints: without, withEndpoints } = results.webhookLag;
    lines.push(
      '',
      "Webhook delivery under the mix (scenario 6), in turns with no endpoint, with one (one location's), and with one per location (every type, one local receiver):",
      '',
      '| conn | endpoints | req/s, no endpoint | p99 ms | req/s, endpoints | p99 ms | req/s with / without | p99 with / without | events delivered | lag p50 ms | lag p99 ms | lag max ms |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const lag of withEndpoints) {
      const figures = lag.figures;
      lines.push(
        `| ${connections} | ${lag.endpoints} | ${without.requestsPerSecond} | ${ms(without.p99Ms)} | ${figures.requestsPerSecond} | ${ms(figures.p99Ms)} | ${ratio(figures.requestsPerSecond, without.requestsPerSecond)} | ${ratio(figures.p99Ms, without.p99Ms)} | ${lag.delivered} | ${ms(lag.lagP50Ms)} | ${ms(lag.lagP99Ms)} | ${ms(lag.lagMaxMs)} |`,
      );
    }
  }
  if (results.growth) lines.push('', ...growthTable(results.growth), ...maintenanceLines(results));
  if (results.webhooksAtSize) lines.push('', ...results.webhooksAtSize);
  const failures = [
    ...allLoads(results)
      .filter(({ figures }) => figures.errors > 0 || figures.non2xx > 0)
      .map(
        ({ label, figures }) =>
          `${label}: ${figures.errors} errors, ${figures.non2xx} non-2xx ${JSON.stringify(figures.non2xxStatuses)} ${figures.firstNon2xxBody ?? ''}`,
      ),
    ...overloadFailures(results),
    ...webhookFailures(results),
  ];
  lines.push(
    '',
    failures.length === 0
      ? `Every answer was 2xx${results.overload ? ' (but the 503s the overload scenario shed at four times the connections, each with Retry-After)' : ''}; no connection errors.`
      : `FAILED: ${failures.join('; ')}`,
  );
  return lines.join('\n');
}

type GrowthStep = NonNullable<BenchResults['growth']>[number];

/** The --growth table: each read at the small and the large size, the large over the small, and each beside the floor. */
function growthTable(growth: NonNullable<BenchResults['growth']>): string[] {
  const [small, large] = growth;
  if (!small || !large) return [];
  const size = (step: typeof small) =>
    `${step.customers.toLocaleString('en-US')} customers, ${step.events.toLocaleString('en-US')} events, ${step.intents.toLocaleString('en-US')} intents (database ${step.databaseMb.toLocaleString('en-US')} MB)`;
  const lines = [
    `Growth over ${large.locations.toLocaleString('en-US')} locations: small = ${size(small)}; large = ${size(large)}.`,
    '',
    '| read | small req/s | small p99 ms | large req/s | large p99 ms | large/small req/s | large/small p99 | small vs floor req/s | large vs floor req/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [index, read] of small.reads.entries()) {
    const atLarge = large.reads[index];
    if (!atLarge) continue;
    const vsFloor = (step: typeof read) => (step.floor ? ratio(step.figures.requestsPerSecond, step.floor.requestsPerSecond) : '');
    lines.push(
      `| ${read.name} | ${read.figures.requestsPerSecond} | ${ms(read.figures.p99Ms)} | ${atLarge.figures.requestsPerSecond} | ${ms(atLarge.figures.p99Ms)} | ${ratio(atLarge.figures.requestsPerSecond, read.figures.requestsPerSecond)} | ${ratio(atLarge.figures.p99Ms, read.figures.p99Ms)} | ${vsFloor(read)} | ${vsFloor(atLarge)} |`,
    );
  }
  lines.push('', `Service peak RSS (VmHWM): ${small.peakRssMb} MB small, ${large.peakRssMb} MB large (${ratio(large.peakRssMb, small.peakRssMb)}).`);
  return [...lines, ...growthCpuTable(small, large), ...statementCostTable(small, large)];
}

/**
 * Each read's CPU per request at both sizes, from /proc. The load generator
 * sends the same requests and reads the same answers at both sizes, and so
 * does the service: their large/small is the machine's own drift between
 * the sizes, against which to read the req/s ratio (docs/performance.md,
 * Growth). PostgreSQL's is where the data's size shows.
 */
export function growthCpuTable(small: GrowthStep, large: GrowthStep): string[] {
  const cell = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? '–' : `${before} → ${after} (${ratio(after, before)})`;
  const lines = [
    '',
    'CPU per request in µs, small → large (large/small); the load generator and the service do the same work at both sizes.',
    '',
    '| read | large/small req/s | load generator | service | PostgreSQL |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [index, read] of small.reads.entries()) {
    const atLarge = large.reads[index];
    if (!atLarge) continue;
    const [before, after] = [read.figures.cpu, atLarge.figures.cpu];
    lines.push(
      `| ${read.name} | ${ratio(atLarge.figures.requestsPerSecond, read.figures.requestsPerSecond)} | ${cell(before?.loadGeneratorMicros, after?.loadGeneratorMicros)} | ${cell(before?.serverMicros, after?.serverMicros)} | ${cell(before?.postgresMicros, after?.postgresMicros)} |`,
    );
  }
  return lines;
}

/** On the sized server: what one request of each read cost the database at each size, the service's beside the floor's. */
function statementCostTable(small: GrowthStep, large: GrowthStep): string[] {
  if (!small.reads.some((read) => read.cost)) return [];
  const cell = (cost: StatementCost | undefined) =>
    cost === undefined ? '' : `${cost.statements.toFixed(2)} / ${cost.buffers.toFixed(1)} (${cost.buffersRead.toFixed(1)}) / ${cost.executionMs.toFixed(3)}`;
  const lines = [
    '',
    "A request's cost to the database (pg_stat_statements over 500 requests one at a time): statements / shared buffers touched (of them read from the OS) / execution ms.",
    '',
    '| read | service, small | service, large | floor, small | floor, large |',
    '|---|---|---|---|---|',
  ];
  for (const [index, read] of small.reads.entries()) {
    const atLarge = large.reads[index];
    lines.push(`| ${read.name} | ${cell(read.cost)} | ${cell(atLarge?.cost)} | ${cell(read.floorCost)} | ${cell(atLarge?.floorCost)} |`);
  }
  return lines;
}

const serverLogSentence = (log: ServerLogCounts | undefined): string =>
  log === undefined
    ? ''
    : ` The server's log meanwhile: ${log.lockWaits} statements waited longer than ${LOCK_WAIT_LIMIT_MS} ms for a lock; ${log.checkpoints} checkpoints, ${log.autovacuums} autovacuum runs.`;

/** The erasure and the purge at the large size, each beside the writes (scenario 3) and the writes alone. */
function maintenanceLines(results: BenchResults): string[] {
  const { erasureAtSize: erasure, purgeAtSize: purge } = results;
  const lines: string[] = [];
  const writes = (figures: { requestsPerSecond: number; p99Ms: number }) => `${figures.requestsPerSecond} req/s, p99 ${ms(figures.p99Ms)} ms`;
  if (erasure)
    lines.push(
      '',
      `Erasure of a customer with ${erasure.events.toLocaleString('en-US')} events and ${erasure.intents.toLocaleString('en-US')} intents: ${erasure.status} in ${ms(erasure.answeredMs)} ms; the writes beside it ${writes(erasure.writesBeside)}, alone ${writes(erasure.writesAlone)}.${serverLogSentence(erasure.serverLog)}`,
    );
  if (purge)
    lines.push(
      '',
      `Retention purge of ${purge.purged.toLocaleString('en-US')} events in ${purge.batches.toLocaleString('en-US')} batches over ${purge.seconds.toFixed(0)} s: a batch's transaction p50 ${ms(purge.batchP50Ms)} ms, p99 ${ms(purge.batchP99Ms)} ms, longest ${ms(purge.batchMaxMs)} ms, ${purge.batchesOverLimit} over ${LOCK_WAIT_LIMIT_MS} ms; the writes beside it ${writes(purge.writesBeside)}, alone ${writes(purge.writesAlone)}.${serverLogSentence(purge.serverLog)}`,
    );
  return lines;
}
