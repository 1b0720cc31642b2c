import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startOwnCluster, type OwnCluster } from '../../support/process/own-postgres-cluster';
import { devClientToken, startSourceService, type RunningService } from '../../support/process/service-process';

/**
 * A database that really restarts: a PostgreSQL cluster of the test's own
 * (never the shared server), stopped and started again while a service
 * process is under a stream of writes. During the gap the service answers
 * 503 with Retry-After, never 500; afterwards it serves again without being
 * restarted; and no write it acknowledged is lost.
 */
let cluster: OwnCluster;
let service: RunningService;

beforeAll(async () => {
  cluster = await startOwnCluster();
  const admin = new Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query('create database payments');
  await admin.end();
  service = await startSourceService({
    DATABASE_URL: cluster.url('payments'),
    DB_POOL_MAX: '4',
    DB_ACQUIRE_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '3000',
    HEALTH_DATABASE_TIMEOUT_MS: '500',
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await cluster?.close();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  id?: string;
  at: number;
}

it('answers 503 with Retry-After during the gap, recovers on its own, and loses no acknowledged write', async () => {
  const token = await devClientToken(service.baseUrl);
  const answers: Answer[] = [];
  const create = async (): Promise<Answer> => {
    const key = randomUUID();
    const response = await fetch(`${service.baseUrl}/v1/customers`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Platform-Restaurant-External-ID': 'loc-restart',
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
      },
      body: JSON.stringify({ externalReferenceId: key }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await response.json()) as { id?: string };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), ...(body.id ? { id: body.id } : {}), at: Date.now() };
  };
  let writing = true;
  const writers = Array.from({ length: 6 }, async () => {
    while (writing) {
      answers.push(await create());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  const acknowledged = () => answers.filter(({ status }) => status === 200).length;
  const until = async (condition: () => boolean, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  await until(() => acknowledged() >= 30, 'writes before the restart');
  const restartStarted = Date.now();
  await cluster.restart({ downMs: 3000 });
  const restarted = Date.now();
  const beforeRecovery = acknowledged();
  await until(() => answers.some(({ status, at }) => status === 200 && at > restarted) && acknowledged() >= beforeRecovery + 30, 'writes after the restart');
  writing = false;
  await Promise.all(writers);

  // Nothing but successes and 503s with Retry-After: no 500, no other refusal.
  const statuses = new Set(answers.map(({ status }) => status));
  expect([...statuses].sort()).toEqual([200, 503]);
  for (const answer of answers.filter(({ status }) => status === 503)) expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
  // The gap was seen by requests made during it.
  expect(answers.some(({ status, at }) => status === 503 && at >= restartStarted)).toBe(true);
  // The same process serves again, and says it is ready.
  expect((await fetch(`${service.baseUrl}/health/ready`)).status).toBe(200);
  // Every acknowledged create is in the database.
  const ids = answers.filter(({ status }) => status === 200).map(({ id }) => id as string);
  const client = new Client({ connectionString: cluster.url('payments') });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: number }>('select count(*)::int as count from customers where id = any($1::uuid[])', [ids]);
    expect(rows[0]?.count).toBe(ids.length);
  } finally {
    await client.end();
  }
}, 120_000);
