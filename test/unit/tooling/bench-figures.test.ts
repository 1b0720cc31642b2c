import { coresAllow, growthCpuTable } from '../../../bench/report';
import type { LoadFigures } from '../../../bench/load';
import { cpuCostBetween } from '../../../bench/machine-cpu';
import { medianOfRounds, RoundsOfOneFigure, withPooledLatencies } from '../../../bench/rounds';

const reading = (atMs: number, machineBusyMs: number, postgresMs: Record<number, number>, loadGeneratorMs: number, serverMs: number) => ({
  atMs,
  machineBusyMs,
  postgresMs: new Map(Object.entries(postgresMs).map(([pid, ms]) => [Number(pid), ms])),
  loadGeneratorMs,
  serverMs,
});

const figures = (requestsPerSecond: number, serverMicros: number, overrides: Partial<LoadFigures> = {}): LoadFigures => ({
  connections: 32,
  requestsPerSecond,
  p50Ms: 10,
  p90Ms: 20,
  p99Ms: 30,
  requests: requestsPerSecond * 5,
  cpu: { serverMicros, loadGeneratorMicros: serverMicros / 4, postgresMicros: serverMicros / 5, machineBusyPercent: 80 },
  errors: 0,
  non2xx: 0,
  non2xxStatuses: {},
  ...overrides,
});

describe('the benchmark figures', () => {
  it('divides each CPU reading by the requests answered, and the machine busy time by wall time × cores', () => {
    // 2 s of wall time, 1,000 requests; both cores together busy for 3 s of 2 × 2 s = 75 %.
    const cost = cpuCostBetween(reading(0, 10_000, { 1: 500 }, 200, 1_000), reading(2_000, 13_000, { 1: 650 }, 380, 1_700), 1_000, 2);
    expect(cost).toEqual({ serverMicros: 700, loadGeneratorMicros: 180, postgresMicros: 150, machineBusyPercent: 75 });
  });

  it("counts PostgreSQL's CPU process by process: one started meanwhile whole, one that ended not at all (never below zero)", () => {
    // Backend 1 used 100 ms, backend 3 started and used 50; backend 2 (900 ms before) ended: its share is unknown, not -900.
    const cost = cpuCostBetween(reading(0, 0, { 1: 500, 2: 900 }, 0, 0), reading(1_000, 0, { 1: 600, 3: 50 }, 0, 0), 1_000, 2);
    expect(cost.postgresMicros).toBe(150);
  });

  it('takes the median of each measure over the rounds and sums the counts', () => {
    const rounds = [
      figures(1000, 700, { errors: 1, non2xx: 2, non2xxStatuses: { '503': 2 } }),
      figures(1400, 500),
      figures(1200, 900, { non2xx: 1, non2xxStatuses: { '503': 1 } }),
    ];
    const median = medianOfRounds(rounds);
    expect(median.requestsPerSecond).toBe(1200);
    expect(median.cpu).toEqual({ serverMicros: 700, loadGeneratorMicros: 175, postgresMicros: 140, machineBusyPercent: 80 });
    expect(median.errors).toBe(1);
    expect(median.non2xx).toBe(3);
    expect(median.non2xxStatuses).toEqual({ '503': 3 });
    expect(median.rounds?.map((round) => round.requestsPerSecond)).toEqual([1000, 1400, 1200]);
  });

  it('takes the latency percentiles over every answer of the rounds, unrounded, and keeps the rest of the figures', () => {
    // 1,000 answers at 0.01, 0.02 ... 10.00 ms: nearest rank p50 is the 501st, p99 the 991st.
    const latencies = Array.from({ length: 1000 }, (_, index) => (1000 - index) / 100);
    const pooled = withPooledLatencies(figures(1200, 700), latencies);
    expect([pooled.p50Ms, pooled.p90Ms, pooled.p99Ms]).toEqual([5.01, 9.01, 9.91]);
    expect(pooled.requestsPerSecond).toBe(1200);
    expect(withPooledLatencies(figures(1200, 700), [])).toEqual(figures(1200, 700));
  });

  it('reads a figure measured over rounds as their medians, its percentiles over every answer the rounds heard', () => {
    const figure = new RoundsOfOneFigure();
    // Two rounds: 1,000 answers in all, 0.01 ... 10.00 ms, split between them.
    for (const [requestsPerSecond, from] of [
      [1000, 0],
      [1400, 500],
    ] as const) {
      figure.add(figures(requestsPerSecond, 700));
      for (let index = from; index < from + 500; index += 1) figure.hear((index + 1) / 100);
    }
    const read = figure.figure();
    expect(read.requestsPerSecond).toBe(1200);
    expect([read.p50Ms, read.p90Ms, read.p99Ms]).toEqual([5.01, 9.01, 9.91]);
  });

  it('bounds two workers by what the cores can give at the CPU each request cost', () => {
    // 2 cores = 2,000,000 µs a second; a request costs 650 + 200 + 150 = 1,000 µs of it.
    expect(coresAllow(2, { serverMicros: 650, loadGeneratorMicros: 200, postgresMicros: 150, machineBusyPercent: 99 })).toBe(2000);
    expect(coresAllow(2, undefined)).toBeUndefined();
  });

  it("sets each read's CPU per request at the large size beside the small, the load generator's first: the machine's own drift", () => {
    const step = (customers: number, requestsPerSecond: number, serverMicros: number) => ({
      customers,
      locations: 1000,
      events: customers * 10,
      intents: customers * 3,
      peakRssMb: 160,
      databaseMb: 100,
      reads: [{ name: 'scenario 1', figures: figures(requestsPerSecond, serverMicros) }],
    });
    const table = growthCpuTable(step(10_000, 1000, 600), step(1_000_000, 800, 750));
    // 600 µs at the small size: a quarter to the load generator, a fifth to PostgreSQL (figures() above).
    expect(table).toContain('| scenario 1 | 0.80× | 150 → 187.5 (1.25×) | 600 → 750 (1.25×) | 120 → 150 (1.25×) |');
  });
});
