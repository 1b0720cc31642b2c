import { purgeExpiredEvents } from '../src/change-log/event-retention';
import { openDatabase } from '../src/platform/db/database';
import { createLogger } from '../src/platform/logger';
import type { LoadFigures } from './load';
import { percentileOf } from './percentile';
import { withClient } from './bench-database';
import { seedUuid } from './ids';
import { LOCK_WAIT_LIMIT_MS, type ServerLogCounts } from './sized-server';

/** The heavy customer's history: what issue 42 names for an erasure at size. */
export const HEAVY_EVENTS = 10_000;
export const HEAVY_INTENTS = 1_000;

export interface ErasureAtSize {
  events: number;
  intents: number;
  /** The DELETE's answer: status and time. */
  status: number;
  answeredMs: number;
  /** The write scenario alone, and with the erasure in the middle of it. */
  writesAlone: LoadFigures;
  writesBeside: LoadFigures;
  /** On the sized server: what its log says of the run beside the erasure. */
  serverLog?: ServerLogCounts;
}

/**
 * A customer with HEAVY_EVENTS events and HEAVY_INTENTS intents (in SQL, at
 * `locationId`), erased by `DELETE /v1/customers/{id}` half-way through a
 * run of the write load, beside a run of the same load alone.
 */
export async function measureErasureAtSize(options: {
  databaseUrl: string;
  serviceUrl: string;
  token: string;
  locationId: string;
  writes: (seconds: number) => Promise<LoadFigures>;
  seconds: number;
}): Promise<ErasureAtSize> {
  const customerId = seedUuid('heavy-customer');
  const customer = '$2::uuid';
  await withClient(options.databaseUrl, async (client) => {
    await client.query(`insert into customers (location_id, id, external_reference_id, description) values ($1, ${customer}, 'heavy', 'ada@example.com')`, [
      options.locationId,
      customerId,
    ]);
    await client.query(
      `insert into events (location_id, id, type, created_at, customer_id, data)
       select $1, gen_random_uuid(), (array['customer.updated', 'payment_intent.created', 'payment_intent.updated'])[1 + k % 3], now(), ${customer},
              jsonb_build_object('object', jsonb_build_object('id', ${customer}, 'description', 'ada@example.com', 'email', 'ada@example.com'), 'previous', null)
         from generate_series(1, ${HEAVY_EVENTS}) k`,
      [options.locationId, customerId],
    );
    await client.query(
      `insert into payment_intents (location_id, id, external_reference_id, customer_id, amount, currency, capture_method, status,
                                    cancellation_reason, email, session_secret)
       select $1, gen_random_uuid(), 'heavy-order-' || k, ${customer}, 1000, 'USD', 'MANUAL', 'CANCELED', 'EXPIRED', 'ada@example.com', 'PI_heavy_SECRET_' || md5(k::text)
         from generate_series(1, ${HEAVY_INTENTS}) k`,
      [options.locationId, customerId],
    );
    await client.query('analyze customers, events, payment_intents');
  });
  const writesAlone = await options.writes(options.seconds);
  const beside = options.writes(options.seconds);
  await new Promise((resolve) => setTimeout(resolve, (options.seconds * 1000) / 2));
  const started = performance.now();
  const answer = await fetch(`${options.serviceUrl}/v1/customers/${customerId}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${options.token}`, 'Platform-Restaurant-External-ID': options.locationId },
  });
  const answeredMs = performance.now() - started;
  await answer.text();
  return { events: HEAVY_EVENTS, intents: HEAVY_INTENTS, status: answer.status, answeredMs, writesAlone, writesBeside: await beside };
}

export interface PurgeAtSize {
  purged: number;
  batches: number;
  seconds: number;
  batchP50Ms: number;
  batchP99Ms: number;
  batchMaxMs: number;
  /** Batches whose transaction took longer than LOCK_WAIT_LIMIT_MS, and every batch's time in order, to set beside the server's log. */
  batchesOverLimit: number;
  batchTimesMs: number[];
  writesAlone: LoadFigures;
  writesBeside: LoadFigures;
  /** On the sized server: what its log says of the purge (lock waits past LOCK_WAIT_LIMIT_MS, checkpoints, autovacuum). */
  serverLog?: ServerLogCounts;
}

/**
 * The retention purge of every event (a retention of 0 days: the seeded
 * history expired), run as the service runs it (purgeExpiredEvents, its own
 * pool) while the write load runs for `seconds`; each batch's transaction
 * timed. The purge goes on to the end after the load stops.
 */
export async function measurePurgeAtSize(options: {
  databaseUrl: string;
  writes: (seconds: number) => Promise<LoadFigures>;
  seconds: number;
}): Promise<PurgeAtSize> {
  const writesAlone = await options.writes(options.seconds);
  const { knex } = openDatabase({
    databaseUrl: options.databaseUrl,
    poolMax: 2,
    acquireTimeoutMs: 10_000,
    statementTimeoutMs: 60_000,
    logger: createLogger({ level: 'silent' }),
  });
  const held: number[] = [];
  const started = performance.now();
  try {
    const purge = purgeExpiredEvents(knex, 0, (_purged, heldMs) => held.push(heldMs));
    const writesBeside = await options.writes(options.seconds);
    const purged = await purge;
    return {
      purged,
      batches: held.length,
      seconds: (performance.now() - started) / 1000,
      batchP50Ms: percentileOf(held, 50),
      batchP99Ms: percentileOf(held, 99),
      batchMaxMs: percentileOf(held, 100),
      batchesOverLimit: held.filter((ms) => ms > LOCK_WAIT_LIMIT_MS).length,
      batchTimesMs: held.map((ms) => Math.round(ms * 10) / 10),
      writesAlone,
      writesBeside,
    };
  } finally {
    await knex.destroy();
  }
}
