import { z } from 'zod';

/** A calendar date with the days each month has (29 February in leap years only), years 0001 to 9999. */
const DATE =
  '(?!0000)(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29' +
  '|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8])))';
/** A time with seconds, at most nine fraction digits, and `Z` or an offset within ±15:59. */
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?(?:Z|[+-](?:0\\d|1[0-5]):[0-5]\\d)';

/**
 * An instant as a query parameter takes it: RFC 3339 restricted to what
 * PostgreSQL's timestamptz reads back without an error (a year 0000 is
 * "out of range", an offset past 15:59 is "time zone displacement out of
 * range", and a long fraction fails too). One anchored pattern, so the
 * document says exactly what the service accepts.
 */
export const INSTANT_PATTERN = new RegExp(`^${DATE}T${TIME}$`);

/** The longest such value: 9999-12-31T23:59:59.999999999+15:59. */
const INSTANT_MAX_LENGTH = 35;

export const instant = z
  .string()
  .regex(INSTANT_PATTERN, {
    message:
      'Must be a date and time in ISO 8601 (e.g. 2026-11-23T18:30:00Z) with a year from 0001 to 9999, at most 9 fraction digits and Z or an offset within ±15:59.',
    abort: true,
  })
  .max(INSTANT_MAX_LENGTH)
  .meta({ format: 'date-time' });
