/**
 * Where a process's CPU went, by layer, from a `.cpuprofile` (`npm run bench
 * -- --profile` writes the service's under bench/results/profiles/service/):
 *
 *   npx tsx bench/profile-summary.ts bench/results/profiles/service/CPU.*.cpuprofile
 *
 * Each sample goes to the layer of the frame nearest its leaf that names
 * one (a socket write under pg's submit is a socket write; pg's own code
 * under a repository is the SQL driver), so the layers add up to the busy
 * time. Prints a Markdown table, as docs/performance.md shows it.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** By the frame's function (native code V8 names without a file). */
const NATIVE_LAYERS: ReadonlyArray<[string, RegExp]> = [
  ['socket writes (system calls: answers, SQL sent)', /^(writev|writeUtf8String|writeString|writeBuffer|writeLatin1String)$/],
  ['JSON.stringify', /^stringify$/],
  ['garbage collection', /^\(garbage collector\)$/],
  ['V8 and native code', /^\(program\)$/],
];

/** By the frame's file, first match wins. */
const FILE_LAYERS: ReadonlyArray<[string, RegExp]> = [
  ['logging (pino, the request log)', /pino|sonic-boom|request-logger|platform\/logger/],
  ['metrics (prom-client)', /prom-client|platform\/metrics\//],
  ['tracing', /opentelemetry|platform\/tracing\//],
  ['token (jose, verification, its cache)', /jose|auth\/(authenticate|verified-token-cache|token-verifier)/],
  ['rate limit', /platform\/rate-limit\//],
  ['sandbox clock', /platform\/clock\//],
  ['validation (zod, card-number scan, headers, body depth)', /zod|validation\/|single-valued-headers|json-depth|location-header/],
  ['SQL driver (pg, pg-protocol, pg-types)', /node_modules\/(pg|pg-protocol|pg-types|postgres-[a-z]+|pg-pool)\//],
  ['Knex and its pool (knex, tarn, statement helpers)', /node_modules\/(knex|tarn)\/|platform\/db\//],
  ['repositories and operations', /(repository|operations|service|face)\.(js|ts)$/],
  ['API router and answer (api-router, in-order, errors)', /src\/api\/|platform\/http\/|platform\/errors\//],
  [
    'Express, router, helmet, body parsing',
    /node_modules\/(express|router|body-parser|raw-body|helmet|content-type|mime-types|mime-db|type-is|qs|parseurl|path-to-regexp|finalhandler|send|on-finished|accepts|negotiator|fresh|etag|vary|encodeurl|statuses|media-typer|proxy-addr)\//,
  ],
];

const OUTSIDE = 'Node core outside the above (HTTP parsing, timers, streams)';

export function layersOf(profile: CpuProfile): { busyMs: number; layers: Array<{ layer: string; ms: number }> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const known = new Map<number, string | null>();
  const layerOf = (id: number): string | null => {
    const seen = known.get(id);
    if (seen !== undefined) return seen;
    const { functionName, url } = (byId.get(id) as ProfileNode).callFrame;
    let layer: string | null = functionName === '(idle)' ? 'idle' : null;
    if (layer === null && url === '') layer = NATIVE_LAYERS.find(([, pattern]) => pattern.test(functionName))?.[0] ?? null;
    if (layer === null && url !== '') layer = FILE_LAYERS.find(([, pattern]) => pattern.test(url))?.[0] ?? null;
    if (layer === null) {
      const parent = parentOf.get(id);
      layer = parent === undefined ? null : layerOf(parent);
    }
    known.set(id, layer);
    return layer;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const layer = layerOf(id) ?? OUTSIDE;
    totals.set(layer, (totals.get(layer) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  totals.delete('idle');
  const layers = [...totals].map(([layer, us]) => ({ layer, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
  return { busyMs: layers.reduce((sum, { ms }) => sum + ms, 0), layers };
}

if (require.main === module) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile>');
  const { busyMs, layers } = layersOf(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const rows = layers.map(({ layer, ms }) => `| ${layer} | ${ms.toFixed(0)} | ${((100 * ms) / busyMs).toFixed(1)} % |`);
  process.stdout.write([`busy ${busyMs.toFixed(0)} ms`, '', '| layer | ms | share |', '|---|---:|---:|', ...rows, ''].join('\n'));
}
