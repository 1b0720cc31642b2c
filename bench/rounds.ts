import type { LoadFigures } from './load';
import type { CpuCost } from './machine-cpu';
import { percentileOfSorted } from './percentile';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * One figure for several rounds of the same load: the median of each
 * measure, so that one slow spell of a shared machine moves no figure;
 * counts (requests, errors, non-2xx) are summed, since every one must be 2xx.
 */
export function medianOfRounds(rounds: LoadFigures[]): LoadFigures {
  const [first] = rounds;
  if (first === undefined) throw new Error('no rounds to summarise');
  if (rounds.length === 1) return first;
  const of = (measure: (figures: LoadFigures) => number): number => median(rounds.map(measure));
  const cpus = rounds.map((figures) => figures.cpu).filter((cpu): cpu is CpuCost => cpu !== undefined);
  const cpuOf = (measure: (cpu: CpuCost) => number): number => Math.round(median(cpus.map(measure)));
  const non2xxStatuses: Record<string, number> = {};
  for (const figures of rounds)
    for (const [status, count] of Object.entries(figures.non2xxStatuses)) non2xxStatuses[status] = (non2xxStatuses[status] ?? 0) + count;
  const firstNon2xxBody = rounds.find((figures) => figures.firstNon2xxBody !== undefined)?.firstNon2xxBody;
  return {
    connections: first.connections,
    requestsPerSecond: Math.round(of((figures) => figures.requestsPerSecond)),
    p50Ms: of((figures) => figures.p50Ms),
    p90Ms: of((figures) => figures.p90Ms),
    p99Ms: of((figures) => figures.p99Ms),
    requests: rounds.reduce((sum, figures) => sum + figures.requests, 0),
    ...(cpus.length > 0
      ? {
          cpu: {
            serverMicros: cpuOf((cpu) => cpu.serverMicros),
            loadGeneratorMicros: cpuOf((cpu) => cpu.loadGeneratorMicros),
            postgresMicros: cpuOf((cpu) => cpu.postgresMicros),
            machineBusyPercent: cpuOf((cpu) => cpu.machineBusyPercent),
          },
        }
      : {}),
    errors: rounds.reduce((sum, figures) => sum + figures.errors, 0),
    non2xx: rounds.reduce((sum, figures) => sum + figures.non2xx, 0),
    non2xxStatuses,
    ...(firstNon2xxBody === undefined ? {} : { firstNon2xxBody }),
    rounds: rounds.map(({ requestsPerSecond, p99Ms, cpu }) => ({ requestsPerSecond, p99Ms, ...(cpu === undefined ? {} : { cpu }) })),
  };
}

/**
 * `figures` with its latency percentiles taken over `latenciesMs`, every
 * answer of its rounds together, unrounded: autocannon's own are whole ms,
 * and a median of rounds' p99s moves a whole step with one round's, too
 * coarse to compare two p99s within a tenth (docs/performance.md, Growth).
 * Without samples, `figures` as it is.
 */
export function withPooledLatencies(figures: LoadFigures, latenciesMs: readonly number[]): LoadFigures {
  if (latenciesMs.length === 0) return figures;
  const sorted = Float64Array.from(latenciesMs).sort();
  return { ...figures, p50Ms: percentileOfSorted(sorted, 50), p90Ms: percentileOfSorted(sorted, 90), p99Ms: percentileOfSorted(sorted, 99) };
}

/**
 * One figure measured over several rounds: each round's figures and every
 * answer's latency (`hear`, given to the load as it runs), read back as the
 * medians of the rounds with the percentiles pooled (withPooledLatencies).
 */
export class RoundsOfOneFigure {
  private readonly rounds: LoadFigures[] = [];
  private readonly latenciesMs: number[] = [];
  readonly hear = (ms: number): void => {
    this.latenciesMs.push(ms);
  };

  add(figures: LoadFigures): void {
    this.rounds.push(figures);
  }

  figure(): LoadFigures {
    return withPooledLatencies(medianOfRounds(this.rounds), this.latenciesMs);
  }
}
