import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger';
import { sendErrorMessage } from './error-handler';
import { shedAnswerHold, type ShedAnswerTiming } from './shed-answer-hold';

export interface LoadSheddingSettings {
  /** Requests received and not yet answered beyond which a new one is answered 503 at once; 0: no bound. */
  maxInFlight: number;
  /** The event loop's delay (p99 over the last sample period) beyond which new requests are answered 503; 0: not watched. */
  maxEventLoopDelayMs: number;
  /** The first hold of a 503 to a connection that asks again within Retry-After, doubled for each further early ask (shed-answer-hold.ts); 0: never held. */
  repeatHoldMs: number;
}

/** What the middleware reads besides its settings; each has a default, the tests give their own. */
export interface LoadSheddingDependencies extends ShedAnswerTiming {
  /** The event loop's recent delay in ms (sampled from the real loop by default). */
  loopDelayMs?: () => number;
  /** Where the one-a-second summary of shed requests goes; none when omitted. */
  logger?: Logger;
}

/** At most one summary line of shed requests per this period. */
const SHED_LOG_PERIOD_MS = 1000;

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
 * One warning a second at most while requests are shed, with how many were
 * and why, instead of an access line for each: the log must not become the
 * overload's cost. The first one of a surge is written at once.
 */
function shedSummary(logger: Logger, settings: LoadSheddingSettings): (reason: string) => void {
  let shed = 0;
  let reason = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (shed === 0) return;
    logger.warn(
      { shed, reason, maxInFlight: settings.maxInFlight, maxEventLoopDelayMs: settings.maxEventLoopDelayMs },
      'requests shed: answered 503 SERVICE_OVERLOADED',
    );
    shed = 0;
  };
  return (why) => {
    shed += 1;
    reason = why;
    if (timer === undefined) {
      flush();
      timer = setTimeout(flush, SHED_LOG_PERIOD_MS);
      timer.unref();
    }
  };
}

/**
 * Sheds load rather than queueing it: a request that arrives while the
 * process already holds `maxInFlight` unanswered ones, or while its event
 * loop is late by more than `maxEventLoopDelayMs` (the CPU is saturated),
 * is answered at once with 503 SERVICE_OVERLOADED and Retry-After, before any
 * token check or database work (held first when its connection asks again
 * less than Retry-After after its last 503: shed-answer-hold.ts);
 * the requests accepted keep their latency,
 * and the process recovers as soon as the load drops. Health probes are
 * never shed. A small middleware of its own: the well-kept load-shedding
 * libraries are Fastify plugins (@fastify/under-pressure); those for Express
 * (overload-protection, toobusy-js) are unmaintained.
 */
export function loadShedding(settings: LoadSheddingSettings, dependencies: LoadSheddingDependencies = {}): RequestHandler {
  const { logger } = dependencies;
  const loopDelayMs = dependencies.loopDelayMs ?? sampledEventLoopDelay(settings);
  let inFlight = 0;
  const shedLog = logger === undefined ? undefined : shedSummary(logger, settings);
  const answerShed = shedAnswerHold(settings.repeatHoldMs, dependencies);
  const full = () => settings.maxInFlight > 0 && inFlight >= settings.maxInFlight;
  const late = () => settings.maxEventLoopDelayMs > 0 && loopDelayMs() > settings.maxEventLoopDelayMs;
  return (request, response, next) => {
    if (request.path.startsWith('/health/')) {
      next();
      return;
    }
    if (full() || late()) {
      // No access line of its own (requestLogger skips it): under a surge that would be thousands a second.
      response.locals.shed = true;
      shedLog?.(full() ? 'in-flight bound' : 'event-loop delay');
      answerShed(request.socket, () => {
        // A held answer's client may have gone meanwhile.
        if (!response.destroyed) sendErrorMessage(request, response, 'SERVICE_OVERLOADED');
      });
      return;
    }
    inFlight += 1;
    response.once('close', () => {
      inFlight -= 1;
    });
    next();
  };
}
