import autocannon from 'autocannon';
import { cpuCostBetween, readCpu, type CpuCost } from './machine-cpu';

/** One request of a scenario: drawn afresh for every request sent. */
export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadSettings {
  url: string;
  connections: number;
  durationSeconds: number;
  /** A run before the measured one, at the same load, whose figures are dropped (JIT, pools, caches). */
  warmupSeconds: number;
  /**
   * Hears each 2xx answer's time in ms of the measured run, unrounded:
   * autocannon's percentiles are whole ms (bench.ts, measureEachInTurns).
   */
  onLatency?: (ms: number) => void;
}

export interface LoadFigures {
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  requests: number;
  /** CPU time per answered request, of the server (what a request costs, whatever else the machine did) and of the rest of the machine. */
  cpu?: CpuCost;
  /** Connection errors and time-outs. */
  errors: number;
  non2xx: number;
  /** Status codes of the non-2xx answers, and the body of the first one, for a diagnosis. */
  non2xxStatuses: Record<string, number>;
  firstNon2xxBody?: string;
  /** With --rounds above 1: each round's own figures, of which the ones above are the medians. */
  rounds?: Array<{ requestsPerSecond: number; p99Ms: number; cpu?: CpuCost }>;
}

async function fire(settings: LoadSettings, seconds: number, next: () => LoadRequest, onLatency?: (ms: number) => void): Promise<LoadFigures> {
  let firstNon2xxBody: string | undefined;
  const options: autocannon.Options = {
    url: settings.url,
    connections: settings.connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => ({ ...request, ...next() }),
        onResponse: (status, body) => {
          if ((status < 200 || status > 299) && firstNon2xxBody === undefined) firstNon2xxBody = `${status} ${body.slice(0, 500)}`;
        },
      },
    ],
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, answer) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(answer),
    );
    if (onLatency)
      instance.on('response', (_client, status, _bytes, responseTime) => {
        if (status >= 200 && status <= 299) onLatency(responseTime);
      });
  });
  const non2xxStatuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, stats]) => [status, stats.count ?? 0]),
  );
  return {
    connections: settings.connections,
    requestsPerSecond: Math.round(result.requests.total / result.duration),
    p50Ms: result.latency.p50,
    p90Ms: result.latency.p90,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    non2xxStatuses,
    ...(firstNon2xxBody === undefined ? {} : { firstNon2xxBody }),
  };
}

/**
 * Warms up, then measures: autocannon as a library, one process, requests
 * drawn by `next`. `cpuMs` reads the server's CPU time, for the cost per request.
 */
export async function measureLoad(settings: LoadSettings, next: () => LoadRequest, cpuMs?: () => number): Promise<LoadFigures> {
  if (settings.warmupSeconds > 0) await fire(settings, settings.warmupSeconds, next);
  const before = cpuMs === undefined ? undefined : readCpu(cpuMs);
  const figures = await fire(settings, settings.durationSeconds, next, settings.onLatency);
  if (cpuMs === undefined || before === undefined || figures.requests === 0) return figures;
  return { ...figures, cpu: cpuCostBetween(before, readCpu(cpuMs), figures.requests) };
}
