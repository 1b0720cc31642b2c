/**
 * `npm run bench:ledger`: the ledger at a busy location's size, on a
 * database of its own, with the production build serving writes meanwhile.
 *
 * 1. The close of one business day of `--close-lines` (100,000) waiting
 *    lines: the time of SettlementService.closeDue on that location (the
 *    sweep's own call, in this process, on the service's pool size).
 * 2. A CSV of a closed batch of `--file-lines` (1,000,000) lines, read from
 *    the service to its last byte: the time, the size, and the service's
 *    peak RSS (VmHWM) before and after.
 *
 * Beside each, the p50 and p99 of writes (POST /v1/customers, `--writers`
 * at once) while it runs, and in a turn before with nothing else running.
 * Seeded rows are written by SQL (generate_series): what is measured is the
 * close and the file, not the captures.
 *   DATABASE_URL (default the local server)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/platform/db/database';
import { SettlementService } from '../src/settlement/settlement.service';
import { benchServerUrl, createBenchDatabase, withClient } from './bench-database';
import { percentileOf } from './percentile';
import { accessToken, benchCredentials, startService } from './servers';
import type { RunningServer } from './processes';

const ROOT = path.resolve(__dirname, '..');

const { values } = parseArgs({
  options: {
    'close-lines': { type: 'string', default: '100000' },
    'file-lines': { type: 'string', default: '1000000' },
    writers: { type: 'string', default: '8' },
    'no-build': { type: 'boolean', default: false },
  },
});
const CLOSE_LINES = Number(values['close-lines']);
const FILE_LINES = Number(values['file-lines']);
const WRITERS = Number(values.writers);
const POOL_MAX = 10;
const STATEMENT_TIMEOUT_MS = 5_000;

const say = (message: string): void => void process.stderr.write(`bench:ledger: ${message}\n`);

/** `count` CAPTURE lines of 10.00 (fee 0.59) at `location`, their ids ordered after `prefix`; `batch` null leaves them waiting. */
function seedLinesSql(count: number): string {
  return `insert into ledger_lines (location_id, id, batch_id, type, source_type, source_id, payment_intent_id, external_reference_id, occurred_at,
                                    business_date, original_business_date, currency, gross, tip, fee, net, card_brand, card_last_four)
          select $1, line_id, $2::uuid, 'CAPTURE', 'payment_intent', line_id, line_id, 'order-' || n, now() - interval '1 day',
                 $3::date, $3::date, 'USD', 1000, 100, 59, 941, 'VISA', '4242'
            from (select n, ('00000000-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid as line_id from generate_series(1, ${count}) as n) as lines`;
}

/** Yesterday's business date at a location on the defaults (America/New_York, 4 a.m.): a day whose close has passed. */
const YESTERDAY = `select (((now() at time zone 'America/New_York') - interval '4 hours')::date - 1)::text as day`;

/** Writes, `WRITERS` at once, until stopped: each answer's time in ms. */
function writeLoad(service: RunningServer, token: string) {
  const times: number[] = [];
  let running = true;
  let failures = 0;
  const writer = async () => {
    while (running) {
      const started = performance.now();
      const answer = await fetch(`${service.url}/v1/customers`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'bench-ledger-writes', 'Content-Type': 'application/json' },
        body: '{"externalReferenceId":"crm"}',
      });
      await answer.arrayBuffer();
      if (answer.status === 201 || answer.status === 200) times.push(performance.now() - started);
      else failures += 1;
    }
  };
  const writers = Array.from({ length: WRITERS }, writer);
  return {
    /** The times heard since the last mark. */
    mark: () => times.splice(0),
    stop: async () => {
      running = false;
      await Promise.all(writers);
      return failures;
    },
  };
}

const summary = (times: readonly number[]) => ({ writes: times.length, p50: percentileOf(times, 50), p99: percentileOf(times, 99) });

async function main(): Promise<void> {
  if (!values['no-build']) {
    say('building the production build (npm run build)');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const database = await createBenchDatabase(benchServerUrl());
  const resultsDir = mkdtempSync(path.join(os.tmpdir(), 'cpp-bench-ledger-'));
  const service = await startService({
    databaseUrl: database.url,
    credentials: await benchCredentials(resultsDir),
    resultsDir,
    webConcurrency: 1,
    rateLimitRequests: 1_000_000_000,
    extraEnv: { DB_POOL_MAX: String(POOL_MAX), DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) },
  });
  // The sweep's connections: the service's pool size and statement timeout (DB_STATEMENT_TIMEOUT_MS), which each statement of the close must keep.
  const knex = openDatabase({ databaseUrl: database.url, poolMax: POOL_MAX, acquireTimeoutMs: 10_000, statementTimeoutMs: STATEMENT_TIMEOUT_MS }).knex;
  const load = writeLoad(service, await accessToken(service));
  try {
    const day = await withClient(database.url, async (client) => String((await client.query(YESTERDAY)).rows[0].day));

    say(`seeding ${CLOSE_LINES} waiting lines and a closed batch of ${FILE_LINES}`);
    const closing = `bench-ledger-close-${process.pid}`;
    const filed = `bench-ledger-file-${process.pid}`;
    const batchId = '00000000-0000-5000-8000-000000000001';
    await withClient(database.url, async (client) => {
      await client.query(seedLinesSql(CLOSE_LINES), [closing, null, day]);
      await client.query(
        `insert into ledger_batches (location_id, id, business_date, currency, time_zone, closeout_hour, opens_at, closes_at, closed_at, counts, totals, seal)
         values ($1, $2, $3::date, 'USD', 'America/New_York', 4, now() - interval '2 days', now() - interval '1 day', now(), $4, $5, 'bench')`,
        [filed, batchId, day, JSON.stringify({ captures: FILE_LINES, refunds: 0, refundFailures: 0, disputes: 0, lines: FILE_LINES }), JSON.stringify({})],
      );
      await client.query(seedLinesSql(FILE_LINES), [filed, batchId, day]);
      await client.query('analyze ledger_lines');
    });

    say('writes alone (10 s)');
    load.mark();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const alone = summary(load.mark());

    say(`closing ${CLOSE_LINES} lines`);
    const settlement = new SettlementService({ currencies: ['USD'], sandbox: true });
    // The close runs here, as in a replica's sweep: this process's peak RSS is the close's memory.
    const closerRssBefore = process.resourceUsage().maxRSS / 1024;
    const closeStarted = performance.now();
    const closed = await settlement.closeDue(knex, closing);
    const closeMs = performance.now() - closeStarted;
    const duringClose = summary(load.mark());
    const closerRssAfter = process.resourceUsage().maxRSS / 1024;
    // The service's own sweep (every minute) may have closed it first: then this measured nothing.
    if (closed !== 1) throw new Error(`the close closed ${closed} batches, not 1: the service's sweep took it first; run again`);

    say(`streaming ${FILE_LINES} lines as CSV`);
    const rssBefore = service.peakRssMb();
    const token = await accessToken(service);
    const fileStarted = performance.now();
    const answer = await fetch(`${service.url}/v1/batches/${batchId}/lines.csv`, {
      headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': filed },
    });
    if (answer.status !== 200 || answer.body === null) throw new Error(`the file answered ${answer.status}: ${await answer.text()}`);
    let bytes = 0;
    let rows = 0;
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      // Counted with indexOf, native: a byte-by-byte loop here would take the cores the service streams on.
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows += 1;
    }
    const fileMs = performance.now() - fileStarted;
    const duringFile = summary(load.mark());
    const rssAfter = service.peakRssMb();
    if (rows !== FILE_LINES + 1) throw new Error(`the file had ${rows} rows, not ${FILE_LINES + 1}`);

    const failures = await load.stop();
    const ratio = (value: number) => `${(value / alone.p99).toFixed(2)}×`;
    process.stdout.write(
      `${[
        `| measured | lines | time s | writes during | write p50 ms | write p99 ms | p99 vs writes alone | peak RSS MB of the process that ran it |`,
        `|---|---:|---:|---:|---:|---:|---:|---:|`,
        `| writes alone (${WRITERS} at once, 10 s) | – | – | ${alone.writes} | ${alone.p50.toFixed(1)} | ${alone.p99.toFixed(1)} | 1.00× | ${rssBefore.toFixed(0)} (the service) |`,
        `| close of one business day | ${CLOSE_LINES.toLocaleString('en-US')} | ${(closeMs / 1000).toFixed(2)} | ${duringClose.writes} | ${duringClose.p50.toFixed(1)} | ${duringClose.p99.toFixed(1)} | ${ratio(duringClose.p99)} | ${closerRssBefore.toFixed(0)} before, ${closerRssAfter.toFixed(0)} after (the closing process) |`,
        `| CSV of a closed batch (${(bytes / 1_048_576).toFixed(0)} MB) | ${FILE_LINES.toLocaleString('en-US')} | ${(fileMs / 1000).toFixed(2)} | ${duringFile.writes} | ${duringFile.p50.toFixed(1)} | ${duringFile.p99.toFixed(1)} | ${ratio(duringFile.p99)} | ${rssBefore.toFixed(0)} before, ${rssAfter.toFixed(0)} after (the service) |`,
        '',
        `Writes that failed: ${failures}. PostgreSQL ${database.serverVersion}, the service on one process with a pool of ${POOL_MAX}.`,
      ].join('\n')}\n`,
    );
  } finally {
    await load.stop();
    await knex.destroy();
    await service.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
