import type { LoadFigures } from './load';
import type { PgbenchFigures } from './pgbench';
import type { ScenarioId } from './scenarios';

/** One scenario at one connection count: the service, and its hand-written ceiling beside it. */
export interface ScenarioRun {
  scenario: ScenarioId;
  name: string;
  service: LoadFigures;
  handWritten: LoadFigures;
}

export interface BenchResults {
  date: string;
  command: string;
  machine: { cores: number; cpu: string; memoryGb: number; node: string; postgres: string };
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
  /** Scenario 1 at a small and a large table. */
  growth?: Array<{ customers: number; figures: LoadFigures }>;
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
    ...(results.growth ?? []).map((step) => ({ label: `growth ${step.customers} customers`, figures: step.figures })),
    ...(results.nodeComparison ?? []).flatMap(({ otherNode, service, otherService }) => [
      { label: `scenario 1 beside ${otherNode} @${service.connections}`, figures: service },
      { label: `scenario 1 on ${otherNode} @${otherService.connections}`, figures: otherService },
    ]),
  ];
}
