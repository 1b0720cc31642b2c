import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { proxiedDatabase, type ProxiedDatabase } from '../../support/process/proxied-database';
import { devClientToken, startSourceService, type RunningService } from '../../support/process/service-process';

/**
 * Issue 36, item 7: with the database answering 2 s late, every request was
 * answered 503 by its deadline, yet the statements of those requests kept
 * running and holding the pool: a shutdown took 17.8 s, or gave up after 20 s
 * and exited 1, and a write could still commit after its 503. Now the
 * deadline cancels the request's statement and drops its connection (a
 * transaction never reaches its COMMIT), and a shutdown exits 0 within
 * drain + SHUTDOWN_TIMEOUT_MS.
 *
 * The bounds tell "answered by the deadline" from "held", and "exited within
 * the shutdown's own bound" from "waited on the database"; they are not speeds.
 */
const REQUEST_TIMEOUT_MS = 2500;
const LATENCY_MS = 1000;
const DRAIN_MS = 500;
const SHUTDOWN_TIMEOUT_MS = 3000;
/** Node's start-up of a process and its exit: far less than a statement still waiting on the slow database. */
const EXIT_MARGIN_MS = 1500;
/** About eight round trips at LATENCY_MS each way: more than a keyed create takes in all. */
const WRITE_WOULD_HAVE_COMMITTED_MS = 16 * LATENCY_MS;

let db: ProxiedDatabase;
beforeAll(async () => {
  db = await proxiedDatabase();
}, 60_000);
afterAll(() => db?.close());
afterEach(() => db.proxy.setLatency(0));

async function startService(): Promise<{ service: RunningService; token: string }> {
  const service = await startSourceService({
    DATABASE_URL: db.proxiedUrl,
    DB_POOL_MAX: '4',
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    SHUTDOWN_DRAIN_SECONDS: String(DRAIN_MS / 1000),
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  return { service, token: await devClientToken(service.baseUrl) };
}

function create(service: RunningService, token: string, location: string, reference: string, key?: string) {
  return fetch(`${service.baseUrl}/v1/customers`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Platform-Restaurant-External-ID': location,
      'Content-Type': 'application/json',
      ...(key === undefined ? {} : { 'Idempotency-Key': key }),
    },
    body: JSON.stringify({ externalReferenceId: reference }),
    signal: AbortSignal.timeout(30_000),
  }).then(async (response) => ({ status: response.status, retryAfter: response.headers.get('retry-after'), at: Date.now() }));
}

describe('a database answering late', () => {
  it('a write answered 503 at its deadline never commits afterwards: its transaction is dropped with its connection', async () => {
    const { service, token } = await startService();
    try {
      const location = `slow-${randomUUID()}`;
      db.proxy.setLatency(LATENCY_MS);
      const references = Array.from({ length: 3 }, () => `late-${randomUUID()}`);
      const answers = await Promise.all(references.map((reference) => create(service, token, location, reference, randomUUID())));
      for (const answer of answers)
        expect({ status: answer.status, retryAfter: answer.retryAfter }).toEqual({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      // Longer than the rest of each write would take at this latency (a claim, a transaction of a few statements): had it gone on, it would have committed by then.
      const watched = Date.now();
      while (Date.now() - watched < WRITE_WOULD_HAVE_COMMITTED_MS) {
        expect(await db.direct('customers').where({ location_id: location }).select('external_reference_id')).toEqual([]);
        await sleep(500);
      }
    } finally {
      await service.stop();
    }
  }, 90_000);

  it('SIGTERM with requests waiting on it: each answered by its deadline, and exit 0 within drain + SHUTDOWN_TIMEOUT_MS', async () => {
    const { service, token } = await startService();
    const location = `slow-${randomUUID()}`;
    db.proxy.setLatency(2000);
    const sent = Date.now();
    const answers = Array.from({ length: 40 }, (_unused, index) =>
      create(service, token, location, `term-${index}`, index % 2 === 0 ? randomUUID() : undefined),
    );
    await sleep(200);
    const signalled = Date.now();
    service.signal('SIGTERM');
    const code = await service.exited;
    const exitedAfter = Date.now() - signalled;
    const answered = await Promise.all(answers);
    for (const answer of answered) {
      expect(answer.status).toBe(503);
      expect(answer.at - sent).toBeLessThan(REQUEST_TIMEOUT_MS + EXIT_MARGIN_MS);
    }
    expect({ code, withinBound: exitedAfter < DRAIN_MS + SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS }).toEqual({ code: 0, withinBound: true });
    expect(service.logLines.join('\n')).not.toMatch(/did not finish in time/);
  }, 90_000);
});
