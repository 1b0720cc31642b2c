import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that must never reach a log line, wherever an object carrying them is
 * logged by mistake: credentials, session secrets and card fields.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["platform-session-secret"]',
  'headers.authorization',
  'headers["platform-session-secret"]',
  '*.authorization',
  '*.clientSecret',
  '*.client_secret',
  '*.sessionSecret',
  '*.accessToken',
  '*.access_token',
  '*.password',
  '*.card',
  '*.cardNumber',
  '*.number',
  '*.cvv',
  '*.cvc',
];

export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level,
    base: { service: 'customer-payment-profiles' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    formatters: { level: (label) => ({ level: label }) },
  };
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions);
}
