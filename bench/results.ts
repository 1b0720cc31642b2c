import type { ErasureAtSize, PurgeAtSize } from './growth-maintenance';
import type { StatementCost } from './statement-costs';
import type { LoadFigures } from './load';
import type { OverloadFigures } from './overload';
import type { PgbenchFigures } from './pgbench';
import type { ScenarioId } from './scenarios';

/** One scenario at one connection count: the service, and its hand-written ceiling beside it. */
export interface ScenarioRun {
  scenario: ScenarioId;
  name: string;
  service: LoadFigures;
  handWritten: LoadFigures;
}

/** The mix's turns with a number of endpoints registered: the API's figures (medians) and every delivery's lag. */
export interface WebhookTurns {
  endpoints: number;
  figures: LoadFigures;
  delivered: number;
  failed: number;
  /** Still pending when the drain's time ran out: must be 0. */
  pending: number;
  received: number;
  duplicates: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
}

export interface BenchResults {
  date: string;
  command: string;
  /** postgresSettings: the sized server's (--shared-buffers), beyond initdb's. */
  machine: { cores: number; cpu: string; memoryGb: number; node: string; postgres: string; postgresSettings?: Record<string, string> };
  settings: { customers: number; durationSeconds: number; warmupSeconds: number; rounds: number; connections: number[]; dbPoolMax: number };
  seedSeconds: number;
  runs: ScenarioRun[];
  bareExpress: LoadFigures[];
  pgbench: PgbenchFigures[];
  servicePeakRssMb: number;
  /** Scenario 1 with WEB_CONCURRENCY=2, and with one process in turns with it. */
  cluster?: { figures: Array<{ single: LoadFigures; cluster: LoadFigures }>; peakRssMbPerProcess: number; dbPoolMaxPerWorker: number };
  /** Scenario 1 on the service run by --compare-node's binary, in turns with the service run by the bench's own. */
  nodeComparison?: Array<{ node: string; otherNode: string; service: LoadFigures; otherService: LoadFigures }>;
  /** Scenario 1 at the sustained connection count, at four times it, and at it again, with OVERLOAD_MAX_IN_FLIGHT = maxInFlight. */
  overload?: { maxInFlight: number; repeatHoldMs: number; phases: Array<{ phase: string; figures: OverloadFigures }> };
  /** The mix with no endpoint, with one, and with one per location (medians of the rounds), and what the receiver saw of each turn's events. */
  webhookLag?: {
    connections: number;
    withoutEndpoints: LoadFigures;
    /** A turn kind per number of endpoints: one (one location's), and one per location. */
    withEndpoints: WebhookTurns[];
  };
  /** The reads at a small and a large size (--growth): scenarios beside the floor, lists alone, and the service's peak RSS. */
  growth?: Array<{
    customers: number;
    locations: number;
    events: number;
    intents: number;
    /** On the sized server, `cost` and `floorCost` are a request's statements and buffers (statement-costs.ts). */
    reads: Array<{ name: string; figures: LoadFigures; floor?: LoadFigures; cost?: StatementCost; floorCost?: StatementCost }>;
    peakRssMb: number;
    /** pg_database_size after the seed. */
    databaseMb: number;
  }>;
  /** At the large size: a heavy customer's erasure beside the writes, and the history's purge beside them. */
  erasureAtSize?: ErasureAtSize;
  purgeAtSize?: PurgeAtSize;
  /** A --growth run's webhook figures (bench.ts, measureWebhooksAtSize), as the scripts print them. */
  webhooksAtSize?: string[];
}

/** Every measured load, for the "errors and non-2xx must be 0" check. */
export function allLoads(results: BenchResults): Array<{ label: string; figures: LoadFigures }> {
  return [
    ...results.runs.flatMap((run) => [
      { label: `service scenario ${run.scenario} @${run.service.connections}`, figures: run.service },
      { label: `hand-written scenario ${run.scenario} @${run.handWritten.connections}`, figures: run.handWritten },
    ]),
    ...results.bareExpress.map((figures) => ({ label: `bare Express @${figures.connections}`, figures })),
    ...(results.cluster?.figures ?? []).flatMap(({ single, cluster }) => [
      { label: `cluster scenario 1 @${cluster.connections}`, figures: cluster },
      { label: `one process beside the cluster, scenario 1 @${single.connections}`, figures: single },
    ]),
    ...(results.growth ?? []).flatMap((step) =>
      step.reads.flatMap(({ name, figures, floor }) => [
        { label: `growth ${step.customers} customers, ${name}`, figures },
        ...(floor ? [{ label: `growth ${step.customers} customers, ${name}, hand-written`, figures: floor }] : []),
      ]),
    ),
    ...[results.erasureAtSize, results.purgeAtSize].flatMap((maintenance, index) =>
      maintenance
        ? [
            { label: `writes alone before the ${index === 0 ? 'erasure' : 'purge'}`, figures: maintenance.writesAlone },
            { label: `writes beside the ${index === 0 ? 'erasure' : 'purge'}`, figures: maintenance.writesBeside },
          ]
        : [],
    ),
    ...(results.webhookLag
      ? [
          { label: `mix without endpoints @${results.webhookLag.connections}`, figures: results.webhookLag.withoutEndpoints },
          ...results.webhookLag.withEndpoints.map((turn) => ({
            label: `mix with ${turn.endpoints} endpoints @${turn.figures.connections}`,
            figures: turn.figures,
          })),
        ]
      : []),
    ...(results.nodeComparison ?? []).flatMap(({ otherNode, service, otherService }) => [
      { label: `scenario 1 beside ${otherNode} @${service.connections}`, figures: service },
      { label: `scenario 1 on ${otherNode} @${otherService.connections}`, figures: otherService },
    ]),
  ];
}

/**
 * What the overload scenario must never show, whatever the timings: an
 * answer other than 2xx or a shed 503, a connection error, a 503 without
 * Retry-After, or a request shed while the load was within what the process
 * sustains (before the surge, and at once after it: the recovery).
 */
export function overloadFailures(results: BenchResults): string[] {
  return (results.overload?.phases ?? []).flatMap(({ phase, figures }, index) => {
    const failures: string[] = [];
    if (figures.otherAnswers > 0 || figures.errors > 0) failures.push(`${phase}: ${figures.otherAnswers} other answers, ${figures.errors} connection errors`);
    if (figures.shedWithoutRetryAfter > 0) failures.push(`${phase}: ${figures.shedWithoutRetryAfter} 503s without Retry-After`);
    if (index !== 1 && figures.shed > 0) failures.push(`${phase}: ${figures.shed} requests shed under the sustained load`);
    return failures;
  });
}

/** What the webhook-lag measurement must never show: a delivery failed or never made, an event delivered twice or not received. */
export function webhookFailures(results: BenchResults): string[] {
  return (results.webhookLag?.withEndpoints ?? []).flatMap((lag) => {
    const failures: string[] = [];
    const turn = `webhooks with ${lag.endpoints} endpoint${lag.endpoints === 1 ? '' : 's'}`;
    if (lag.failed > 0 || lag.pending > 0) failures.push(`${turn}: ${lag.failed} deliveries failed, ${lag.pending} still pending`);
    if (lag.duplicates > 0) failures.push(`${turn}: ${lag.duplicates} events delivered twice`);
    if (lag.received !== lag.delivered) failures.push(`${turn}: ${lag.delivered} deliveries recorded, ${lag.received} events received`);
    return failures;
  });
}
