import { z } from 'zod';

// C0 controls and DEL. NUL in particular would make PostgreSQL fail the query.
const CONTROL = '\\u0000-\\u001f\\u007f';
// The same, but allowing tab, line feed and carriage return in free text.
const CONTROL_EXCEPT_WHITESPACE = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f';
const CONTROL_CHARACTERS = new RegExp(`[${CONTROL}]`);

/**
 * A string the service will store: well-formed Unicode (no lone surrogates,
 * which would be silently replaced on the way to UTF-8), no NUL or other control
 * characters, at most `max` characters.
 */
export function safeText(options: { min?: number; max: number; allowLineBreaks?: boolean }) {
  const forbidden = options.allowLineBreaks ? CONTROL_EXCEPT_WHITESPACE : CONTROL;
  // A pattern, not a refinement: the document then says it too.
  return wellFormedText(options).regex(new RegExp(`^[^${forbidden}]*$`), { message: 'Must not contain control characters.' });
}

function wellFormedText(options: { min?: number; max: number }) {
  return z
    .string()
    .min(options.min ?? 0)
    .max(options.max)
    .refine((value) => value.isWellFormed(), { message: 'Must be well-formed Unicode text.', abort: true });
}

/**
 * Unicode's format characters (category Cf): invisible, yet part of a
 * string's identity: zero-width spaces and joiners, bidirectional overrides
 * such as U+202E, the byte-order mark, soft hyphens, tag characters.
 */
const FORMAT_CHARACTERS = /\p{Cf}/u;

export function hasFormatCharacters(value: string): boolean {
  return FORMAT_CHARACTERS.test(value);
}

/**
 * A name the service compares to find a record (a context name, a
 * reference, a fingerprint): safe text, read in Unicode NFC so that "café"
 * typed composed or decomposed names one thing, and without format
 * characters, so that two names that look the same are the same.
 */
export function identifierText(options: { min?: number; max: number; description: string }) {
  // One pattern for both rules, so the document states it as one.
  return wellFormedText(options)
    .regex(new RegExp(`^[^${CONTROL}\\p{Cf}]*$`, 'u'), {
      message: 'Must not contain control characters, nor invisible format or bidirectional control characters (Unicode category Cf).',
    })
    .transform((value) => value.normalize('NFC'))
    .meta({ description: `${options.description} ${IDENTIFIER_RULE}` });
}

/** How the document states the rule of identifierText. */
const IDENTIFIER_RULE =
  'Read in Unicode NFC (composed and decomposed forms name the same thing); format characters (Unicode category Cf, e.g. U+200B, U+202E) are refused.';

/** A UUID path or body value. Upper case is accepted and read as the same UUID. */
export const uuidValue = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, { message: 'Must be a UUID.', abort: true })
  .length(36)
  .transform((value) => value.toLowerCase())
  .meta({ format: 'uuid' });

export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}
