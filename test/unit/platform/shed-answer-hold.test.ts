import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { loadShedding } from '../../../src/platform/http/load-shedding';
import { requestId } from '../../../src/platform/http/request-id';
import { shedAnswerHold } from '../../../src/platform/http/shed-answer-hold';

/**
 * The hold counted, not timed: the clock is the test's and every held answer
 * waits in a list until the test sends it, so what is asserted is which
 * answers are held and for how long they are asked to be, never how long
 * anything took.
 */
function testClock() {
  let nowMs = 0;
  const held: Array<{ send: () => void; ms: number }> = [];
  return {
    timing: { now: () => nowMs, schedule: (send: () => void, ms: number) => void held.push({ send, ms }) },
    advance: (ms: number) => {
      nowMs += ms;
    },
    held,
  };
}

it('answers a connection at once, then holds its answers while it asks again within Retry-After, and answers at once again after', () => {
  const clock = testClock();
  const answer = shedAnswerHold(50, clock.timing);
  const first = {};
  const other = {};
  const sent: string[] = [];
  answer(first, () => sent.push('first at once'));
  answer(other, () => sent.push('other at once'));
  clock.advance(999);
  answer(first, () => sent.push('first held'));
  expect(sent).toEqual(['first at once', 'other at once']);
  expect(clock.held.map(({ ms }) => ms)).toEqual([50]);
  clock.held[0]?.send();
  expect(sent).toEqual(['first at once', 'other at once', 'first held']);
  // Waiting the Retry-After's whole second, from its last 503, is honouring it.
  clock.advance(1000);
  answer(first, () => sent.push('first at once again'));
  expect(sent.at(-1)).toBe('first at once again');
  expect(clock.held).toHaveLength(1);
});

it('doubles the hold for each early ask in a row, up to Retry-After, and starts over once a connection has waited', () => {
  const clock = testClock();
  const answer = shedAnswerHold(50, clock.timing);
  const socket = {};
  let sent = 0;
  answer(socket, () => (sent += 1));
  // A retry loop without back-off: it asks again the moment each answer arrives.
  for (let ask = 0; ask < 7; ask += 1) {
    answer(socket, () => (sent += 1));
    const hold = clock.held.at(-1) as { send: () => void; ms: number };
    clock.advance(hold.ms);
    hold.send();
  }
  expect(clock.held.map(({ ms }) => ms)).toEqual([50, 100, 200, 400, 800, 1000, 1000]);
  expect(sent).toBe(8);
  // Retry-After is counted from the last answer, not from the request it answered: 999 ms after it is early still.
  clock.advance(999);
  answer(socket, () => (sent += 1));
  expect(clock.held.at(-1)?.ms).toBe(1000);
  clock.held.at(-1)?.send();
  clock.advance(1000);
  answer(socket, () => (sent += 1));
  expect(sent).toBe(10);
  expect(clock.held).toHaveLength(8);
  // Having waited, the connection's next early ask is held for the first hold again.
  answer(socket, () => (sent += 1));
  expect(clock.held.at(-1)?.ms).toBe(50);
});

it('never holds with a hold of 0', () => {
  const clock = testClock();
  const answer = shedAnswerHold(0, clock.timing);
  const socket = {};
  let sent = 0;
  for (let ask = 0; ask < 5; ask += 1) answer(socket, () => (sent += 1));
  expect(sent).toBe(5);
  expect(clock.held).toHaveLength(0);
});

/** GET over one kept-alive connection, as a client that ignores Retry-After would ask. */
function getOn(agent: http.Agent, port: number, path: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'], body }));
      })
      .on('error', reject);
  });
}

it('holds the 503 of a kept-alive connection that asks again at once, and still sends it with Retry-After', async () => {
  const clock = testClock();
  const app = express();
  app.use(requestId(), loadShedding({ maxInFlight: 0, maxEventLoopDelayMs: 100, repeatHoldMs: 50 }, { loopDelayMs: () => 101, ...clock.timing }));
  app.get('/quick', (_request, response) => void response.json({ quick: true }));
  const server = app.listen(0);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { port } = server.address() as AddressInfo;
    const first = await getOn(agent, port, '/quick');
    expect(first).toMatchObject({ status: 503, retryAfter: '1' });
    let answered = false;
    const second = getOn(agent, port, '/quick').finally(() => (answered = true));
    // Until the service holds it, or (wrongly) answers it.
    while (clock.held.length === 0 && !answered) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(answered).toBe(false);
    expect(clock.held.map(({ ms }) => ms)).toEqual([50]);
    clock.held[0]?.send();
    const answer = await second;
    expect(answer).toMatchObject({ status: 503, retryAfter: '1' });
    expect(JSON.parse(answer.body)).toMatchObject({ code: 5006, messageKey: 'SERVICE_OVERLOADED' });
    // Another connection's first 503 is not held.
    const fresh = new http.Agent({ keepAlive: false });
    expect(await getOn(fresh, port, '/quick')).toMatchObject({ status: 503, retryAfter: '1' });
    expect(clock.held).toHaveLength(1);
  } finally {
    agent.destroy();
    server.close();
  }
});
