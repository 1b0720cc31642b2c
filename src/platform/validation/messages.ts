import { z } from 'zod';

/** zod's names of JSON types, as a caller reads them. */
const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  email: 'an e-mail address',
  uuid: 'a UUID',
  url: 'a URL',
  datetime: 'a date and time in ISO 8601 (e.g. 2026-11-23T18:30:00Z)',
};

function bound(origin: string, limit: number | bigint, inclusive: boolean | undefined, side: 'least' | 'most'): string {
  const comparison = inclusive === false ? (side === 'least' ? 'more than' : 'less than') : `at ${side}`;
  if (origin === 'string') return `Must be ${comparison} ${limit} ${Number(limit) === 1 ? 'character' : 'characters'} long.`;
  if (origin === 'array') return `Must hold ${comparison} ${limit} ${Number(limit) === 1 ? 'item' : 'items'}.`;
  return `Must be ${comparison} ${limit}.`;
}

/**
 * The service's words for zod's default messages ("Invalid input: expected
 * int, received number" becomes "Must be a whole number."). A message a
 * schema gives itself still wins: this is only the fallback.
 */
export function serviceMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'Required.';
      // A string sent where z.int() is expected fails as "not a number": the field still wants a whole one.
      const wantsWhole = (issue.inst as { _zod?: { def?: { format?: string } } } | undefined)?._zod?.def?.format?.endsWith('int') === true;
      return `Must be ${TYPE_NAMES[wantsWhole ? 'int' : issue.expected] ?? issue.expected}.`;
    }
    case 'too_small':
      return bound(issue.origin, issue.minimum, issue.inclusive, 'least');
    case 'too_big':
      return bound(issue.origin, issue.maximum, issue.inclusive, 'most');
    case 'invalid_format':
      return `Must be ${FORMAT_NAMES[issue.format] ?? `in the ${issue.format} format`}.`;
    case 'invalid_value':
      return `Must be ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((value) => JSON.stringify(value)).join(', ')}.`;
    case 'not_multiple_of':
      return `Must be a multiple of ${issue.divisor}.`;
    default:
      return undefined;
  }
}

// Once, for every schema of the service: zod reads it at parse time.
z.config({ customError: serviceMessage });
