import { trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that must never reach a log line, wherever an object carrying them is
 * logged by mistake: credentials, session secrets, webhook signing secrets
 * (and the signatures made with them) and card fields.
 */
const REDACTED_ANYWHERE = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["platform-session-secret"]',
  'headers.authorization',
  'headers["platform-session-secret"]',
  '*.authorization',
  '*.clientSecret',
  '*.client_secret',
  '*.sessionSecret',
  '*.secret',
  '*.previousSecret',
  '*.previous_secret',
  '*["webhook-signature"]',
  '*.accessToken',
  '*.access_token',
  '*.password',
  '*.card',
  '*.cardNumber',
  '*.number',
  '*.cvv',
  '*.cvc',
];

/** The wildcard paths match one level down; the same names at the top level are redacted too. */
export const REDACTED_PATHS = [...REDACTED_ANYWHERE, ...REDACTED_ANYWHERE.filter((path) => path.startsWith('*.')).map((path) => path.slice(2))];

/** `traceId` and `spanId` of the active span; nothing without one (tracing off: the API's no-op answers undefined). */
function traceOfActiveSpan(): object {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/**
 * JSON lines on stdout. `pretty` (development at a terminal only) formats
 * them with pino-pretty, a development dependency that production never loads.
 */
export function createLogger(options: { level: string; destination?: pino.DestinationStream; pretty?: boolean }): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level,
    base: { service: 'customer-payment-profiles' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    formatters: { level: (label) => ({ level: label }) },
    // The trace of the request being served, when tracing is on: a log line finds its spans.
    mixin: traceOfActiveSpan,
  };
  if (options.destination) return pino(loggerOptions, options.destination);
  if (options.pretty) return pino({ ...loggerOptions, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } });
  return pino(loggerOptions);
}
