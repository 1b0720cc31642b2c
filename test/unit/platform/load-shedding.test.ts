import express from 'express';
import request from 'supertest';
import { loadShedding } from '../../../src/platform/http/load-shedding';
import { requestId } from '../../../src/platform/http/request-id';
import { requestLogger } from '../../../src/platform/http/request-logger';
import { createLogger } from '../../../src/platform/logger';

/**
 * Load shedding counted, not timed: with N requests held unanswered, request
 * N+1 is answered 503 SERVICE_OVERLOADED with Retry-After at once; probes are
 * never shed; once the held ones are answered, new requests are served again.
 * A late event loop sheds too (its measure given here), and stops shedding
 * when it is on time again.
 */
function appWith(settings: { maxInFlight: number; maxEventLoopDelayMs: number; repeatHoldMs: number }) {
  const releases: Array<() => void> = [];
  const app = express();
  app.use(requestId(), loadShedding(settings));
  app.get('/health/live', (_request, response) => void response.json({ ok: true }));
  app.get('/held', (_request, response) => void releases.push(() => response.json({ held: true })));
  app.get('/quick', (_request, response) => void response.json({ quick: true }));
  return { app, releases };
}

it('answers the request beyond maxInFlight 503 with Retry-After, never a probe, and serves again once the held ones are answered', async () => {
  const { app, releases } = appWith({ maxInFlight: 3, maxEventLoopDelayMs: 0, repeatHoldMs: 0 });
  const server = app.listen(0);
  try {
    const held = [1, 2, 3].map(() =>
      request(server)
        .get('/held')
        .then((response) => response),
    );
    while (releases.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const shed = await request(server).get('/quick');
    expect(shed.status).toBe(503);
    expect(shed.headers['retry-after']).toBe('1');
    expect(shed.body).toMatchObject({ status: 503, code: 5006, messageKey: 'SERVICE_OVERLOADED', requestId: expect.any(String) });
    await request(server).get('/health/live').expect(200);
    for (const release of releases) release();
    expect((await Promise.all(held)).map(({ status }) => status)).toEqual([200, 200, 200]);
    await request(server).get('/quick').expect(200);
  } finally {
    server.close();
  }
});

it('sheds while the event loop is later than the bound, and serves again once it is on time', async () => {
  let delayMs = 0;
  const app = express();
  app.use(requestId(), loadShedding({ maxInFlight: 0, maxEventLoopDelayMs: 100, repeatHoldMs: 0 }, { loopDelayMs: () => delayMs }));
  app.get('/quick', (_request, response) => void response.json({ quick: true }));
  await request(app).get('/quick').expect(200);
  delayMs = 101;
  await request(app)
    .get('/quick')
    .expect(503, /SERVICE_OVERLOADED/);
  delayMs = 100;
  await request(app).get('/quick').expect(200);
});

it('reads the real event loop: a 600 ms block shows as a delay above 500 ms in the next sample', async () => {
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const until = Date.now() + 600;
  while (Date.now() < until);
  await new Promise((resolve) => setTimeout(resolve, 50));
  histogram.disable();
  expect(histogram.max / 1e6).toBeGreaterThan(500);
});

it('writes no access line for a shed request: one summary warning counts a surge, then at most one a second', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  let delayMs = 101;
  const app = express();
  app.use(
    requestId(),
    requestLogger(logger),
    loadShedding({ maxInFlight: 0, maxEventLoopDelayMs: 100, repeatHoldMs: 0 }, { loopDelayMs: () => delayMs, logger }),
  );
  app.get('/quick', (_request, response) => void response.json({ quick: true }));
  for (let shed = 0; shed < 5; shed += 1) await request(app).get('/quick').expect(503);
  delayMs = 0;
  await request(app).get('/quick').expect(200);
  expect(lines.filter(({ msg }) => msg === 'request completed').map(({ status }) => status)).toEqual([200]);
  // The first of the surge is written at once; the four after it wait for the period's end.
  expect(lines.filter(({ msg }) => String(msg).startsWith('requests shed'))).toEqual([
    expect.objectContaining({ level: 'warn', shed: 1, reason: 'event-loop delay' }),
  ]);
});
