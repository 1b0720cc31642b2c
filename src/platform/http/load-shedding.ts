import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import { sendErrorMessage } from './error-handler';

export interface LoadSheddingSettings {
  /** Requests received and not yet answered beyond which a new one is answered 503 at once; 0: no bound. */
  maxInFlight: number;
  /** The event loop's delay (p99 over the last sample period) beyond which new requests are answered 503; 0: not watched. */
  maxEventLoopDelayMs: number;
}

/** How often the event loop's delay is read (and its histogram restarted). */
const SAMPLE_PERIOD_MS = 500;

/**
 * The event loop's delay, p99 over the last whole sample period, in ms (0
 * until a period has passed, and always when it is not watched).
 */
function sampledEventLoopDelay(settings: LoadSheddingSettings): () => number {
  if (settings.maxEventLoopDelayMs <= 0) return () => 0;
  let lastPeriodMs = 0;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  setInterval(() => {
    lastPeriodMs = delay.percentile(99) / 1e6;
    delay.reset();
  }, SAMPLE_PERIOD_MS).unref();
  return () => lastPeriodMs;
}

/**
 * Sheds load rather than queueing it: a request that arrives while the
 * process already holds `maxInFlight` unanswered ones, or while its event
 * loop is late by more than `maxEventLoopDelayMs` (the CPU is saturated),
 * is answered at once with 503 SERVICE_OVERLOADED and Retry-After, before any
 * token check or database work; the requests accepted keep their latency,
 * and the process recovers as soon as the load drops. Health probes are
 * never shed. A small middleware of its own: the well-kept load-shedding
 * libraries are Fastify plugins (@fastify/under-pressure); those for Express
 * (overload-protection, toobusy-js) are unmaintained.
 */
export function loadShedding(settings: LoadSheddingSettings, loopDelayMs: () => number = sampledEventLoopDelay(settings)): RequestHandler {
  let inFlight = 0;
  const full = () => settings.maxInFlight > 0 && inFlight >= settings.maxInFlight;
  const late = () => settings.maxEventLoopDelayMs > 0 && loopDelayMs() > settings.maxEventLoopDelayMs;
  return (request, response, next) => {
    if (request.path.startsWith('/health/')) {
      next();
      return;
    }
    if (full() || late()) {
      sendErrorMessage(request, response, 'SERVICE_OVERLOADED');
      return;
    }
    inFlight += 1;
    response.once('close', () => {
      inFlight -= 1;
    });
    next();
  };
}
