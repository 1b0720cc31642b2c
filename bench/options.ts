import { benchServerUrl } from './bench-database';
import { sizeInBytes } from './huge-pages';
import { SCENARIOS } from './scenarios';
import { parseArgs } from 'node:util';

export interface BenchOptions {
  quick: boolean;
  customers: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Each scenario this many times, alternating with its ceiling; figures are the medians. */
  rounds: number;
  connections: number[];
  /** Also scenario 1 with WEB_CONCURRENCY=2. */
  cluster: boolean;
  /** The reads at 10,000 customers, then again at --growth-to with a year of history over 1,000 locations (bench.ts, measureGrowth). */
  growth: boolean;
  growthTo: number;
  /** A PostgreSQL cluster of the run's own with this shared_buffers (sized-server.ts) in place of DATABASE_URL's server. */
  sharedBuffers?: string;
  /** That cluster's shared memory in 2 MB pages, reserved for the run and given back after it (huge-pages.ts). */
  hugePages: boolean;
  build: boolean;
  serverUrl: string;
  dbPoolMax: number;
  /** The overload scenario (scenario 1 at four times the connections, on a bounded service); --no-overload skips it. */
  overload: boolean;
  /** Webhook delivery under the mix, with and without endpoints (under --growth: at size, bench.ts measureWebhooksAtSize); --no-webhooks skips it. */
  webhooks: boolean;
  /** Only these scenarios (all by default). */
  scenarios: number[];
  /** Runs the service and ceiling (b) with `node --cpu-prof`, profiles under bench/results/profiles/{service,hand-written}/. */
  profile: boolean;
  /** Another node binary: scenario 1 on the service run by it, in turns with the service run by this one. */
  compareNode?: string;
}

const USAGE = `npm run bench -- [--quick] [--customers N] [--duration S] [--warmup S] [--rounds N] [--connections 32,128]
                   [--no-cluster] [--no-overload] [--no-webhooks] [--growth [--growth-to N] [--shared-buffers 8GB [--huge-pages]]] [--no-build] [--scenarios 1,2] [--profile]
                   [--compare-node PATH_TO_NODE]
  DATABASE_URL: the PostgreSQL server to create the benchmark's database on (default the local server)
  --shared-buffers SIZE: instead, a PostgreSQL 15 cluster of the run's own (initdb in a temporary folder) with this shared_buffers
  --huge-pages: its shared memory in 2 MB pages, which the run reserves (as root) and gives back`;

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} must be a positive integer\n${USAGE}`);
  return number;
}

function sharedBuffers(value: string): string {
  try {
    sizeInBytes(value);
  } catch {
    throw new Error(`--shared-buffers must be a size such as 512MB or 8GB\n${USAGE}`);
  }
  return value;
}

export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      customers: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      'no-cluster': { type: 'boolean', default: false },
      'no-overload': { type: 'boolean', default: false },
      'no-webhooks': { type: 'boolean', default: false },
      growth: { type: 'boolean', default: false },
      'growth-to': { type: 'string' },
      'shared-buffers': { type: 'string' },
      'huge-pages': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      scenarios: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'compare-node': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values['huge-pages'] && values['shared-buffers'] === undefined) throw new Error(`--huge-pages is for the cluster of --shared-buffers\n${USAGE}`);
  // --quick: small data, short runs, no cluster; under two minutes, for CI and reviewers.
  const quick = values.quick;
  return {
    quick,
    customers: positive('customers', values.customers, quick ? 2_000 : 100_000),
    durationSeconds: positive('duration', values.duration, quick ? 2 : 5),
    warmupSeconds: values.warmup === '0' ? 0 : positive('warmup', values.warmup, quick ? 1 : 5),
    rounds: positive('rounds', values.rounds, quick ? 1 : 3),
    connections: (values.connections ?? '32,128').split(',').map((count) => positive('connections', count, 0)),
    cluster: !quick && !values['no-cluster'],
    overload: !values['no-overload'],
    webhooks: !values['no-webhooks'],
    growth: values.growth,
    growthTo: positive('growth-to', values['growth-to'], 1_000_000),
    build: !values['no-build'],
    serverUrl: benchServerUrl(),
    dbPoolMax: positive('DB_POOL_MAX', process.env.DB_POOL_MAX, 10),
    scenarios: (values.scenarios ?? SCENARIOS.map(({ id }) => id).join(',')).split(',').map((id) => positive('scenarios', id, 0)),
    profile: values.profile,
    ...(values['shared-buffers'] === undefined ? {} : { sharedBuffers: sharedBuffers(values['shared-buffers']) }),
    hugePages: values['huge-pages'],
    ...(values['compare-node'] === undefined ? {} : { compareNode: values['compare-node'] }),
  };
}
