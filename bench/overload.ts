import autocannon from 'autocannon';
import type { LoadRequest } from './load';
import { percentileOf } from './percentile';

/**
 * The overload scenario's load: like load.ts, but each answer is timed and
 * counted by its status, so the p99 of the requests the service accepted is
 * read apart from the 503s it shed (autocannon's own histogram mixes them).
 * With one request in flight per connection, a connection's request is sent
 * when the previous answer is in, right after `setupRequest`, which stamps it.
 * Like the clients the hold is for, autocannon asks again at once after a
 * 503: the 503s are read as a connection's first (answered at once) and its
 * repeats within Retry-After (held OVERLOAD_REPEAT_HOLD_MS first, each
 * further one twice as long up to Retry-After).
 */
export interface OverloadFigures {
  connections: number;
  seconds: number;
  served: number;
  shed: number;
  /** 503 answers without a Retry-After header: must be 0. */
  shedWithoutRetryAfter: number;
  /** Answers that were neither 2xx nor a 503 SERVICE_OVERLOADED, and connection errors: must be 0. */
  otherAnswers: number;
  errors: number;
  servedP50Ms: number;
  servedP99Ms: number;
  shedP99Ms: number;
  /** 503s to a connection not shed in the Retry-After before: how many, and their p99. */
  firstShed: number;
  firstShedP99Ms: number;
}

/** Retry-After's 1 s: a 503 sooner than this after the connection's last one is a repeat. */
const RETRY_AFTER_MS = 1000;

/** What autocannon keeps between a request's setup and its answer (it clears it before the next one). */
interface RequestContext {
  sentAt?: number;
}

export async function measureOverloadPhase(url: string, connections: number, seconds: number, next: () => LoadRequest): Promise<OverloadFigures> {
  const served: number[] = [];
  const shed: number[] = [];
  const firstShed: number[] = [];
  let shedWithoutRetryAfter = 0;
  let otherAnswers = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    // Each connection's 503s, in its own closure: the request context above does not outlive a request.
    setupClient: (client) => {
      let lastShedAt: number | undefined;
      client.on('response', (status: number, _bytes: number, durationMs: number) => {
        if (status !== 503) return;
        const now = performance.now();
        if (lastShedAt === undefined || now - durationMs - lastShedAt >= RETRY_AFTER_MS) firstShed.push(durationMs);
        lastShedAt = now;
      });
    },
    requests: [
      {
        setupRequest: (request, context) => {
          (context as RequestContext).sentAt = performance.now();
          return { ...request, ...next() };
        },
        onResponse: (status, _body, context, headers) => {
          const elapsed = performance.now() - ((context as RequestContext).sentAt ?? performance.now());
          if (status >= 200 && status < 300) served.push(elapsed);
          else if (status === 503) {
            shed.push(elapsed);
            // Raw header names, as the server wrote them.
            if (!Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'retry-after')) shedWithoutRetryAfter += 1;
          } else otherAnswers += 1;
        },
      },
    ],
  });
  return {
    connections,
    seconds,
    served: served.length,
    shed: shed.length,
    shedWithoutRetryAfter,
    otherAnswers,
    errors: result.errors,
    servedP50Ms: percentileOf(served, 50),
    servedP99Ms: percentileOf(served, 99),
    shedP99Ms: percentileOf(shed, 99),
    firstShed: firstShed.length,
    firstShedP99Ms: percentileOf(firstShed, 99),
  };
}
