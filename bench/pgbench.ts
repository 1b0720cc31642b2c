import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { locationCount, sqlSeedUuid } from './ids';

export interface PgbenchFigures {
  connections: number;
  transactionsPerSecond: number;
  averageLatencyMs: number;
  failed: number;
}

/** Scenario 1's SELECT for a random seeded customer, with the id computed as seed.ts computed it. */
const scenarioOneScript = () => `\\set n random(1, :customers)
select pm.location_id, pm.id, pm.customer_id, pm.type, pm.card_brand, pm.last_four, pm.exp_month, pm.exp_year, pm.fingerprint, pm.created_at
  from customers as c
  left join payment_methods as pm on pm.location_id = c.location_id and pm.customer_id = c.id
 where c.location_id = 'bench-location-' || (:n % ${locationCount()}) and c.id = ${sqlSeedUuid(`'customer-' || :n`)}
 order by pm.created_at asc, pm.id asc;
`;

/**
 * Ceiling (c): PostgreSQL alone answering scenario 1's SELECT, driven by
 * pgbench with prepared statements; what the database could give if HTTP,
 * tokens and JSON cost nothing.
 */
export async function runPgbench(databaseUrl: string, customers: number, connections: number, seconds: number): Promise<PgbenchFigures> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'cpp-pgbench-'));
  try {
    const script = path.join(folder, 'select.sql');
    writeFileSync(script, scenarioOneScript());
    const { stdout } = await promisify(execFile)(
      'pgbench',
      [
        '-n',
        '-M',
        'prepared',
        '-c',
        String(connections),
        '-j',
        String(Math.min(connections, os.cpus().length)),
        '-T',
        String(seconds),
        '-D',
        `customers=${customers}`,
        '-f',
        script,
        databaseUrl,
      ],
      { maxBuffer: 1 << 20 },
    );
    const number = (pattern: RegExp): number => Number(pattern.exec(stdout)?.[1] ?? Number.NaN);
    return {
      connections,
      transactionsPerSecond: Math.round(number(/tps = ([\d.]+)/)),
      averageLatencyMs: number(/latency average = ([\d.]+) ms/),
      failed: number(/number of failed transactions: (\d+)/) || 0,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
