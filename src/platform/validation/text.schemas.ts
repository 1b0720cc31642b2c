import { z } from 'zod';

// C0 controls and DEL. NUL in particular would make PostgreSQL fail the query.
const CONTROL = '\\u0000-\\u001f\\u007f';
// The same, but allowing tab, line feed and carriage return in free text.
const CONTROL_EXCEPT_WHITESPACE = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f';
const CONTROL_CHARACTERS = new RegExp(`[${CONTROL}]`);

/**
 * The document's patterns are read by tools that compile them without the
 * `u` flag (Spectral's ajv, Python's `re`), where `\p{Cf}` is not a Unicode
 * property but the letters p, {, C, f, }: they name characters by explicit
 * ranges of the Basic Multilingual Plane instead, which every engine reads
 * alike. test/unit/platform/text-ranges.test.ts checks each range list
 * against Node's own Unicode tables.
 *
 * Unicode's format characters (category Cf) of the Basic Multilingual Plane.
 * The few outside it (U+110BD, U+110CD, U+13430–1343F, U+1BCA0–1BCA3,
 * U+1D173–1D17A, the tag characters U+E0001 and U+E0020–E007F) cannot be
 * written portably (without `u` a pattern sees their two UTF-16 halves; with
 * it, escaped halves are no character): a refinement refuses those, and the
 * description says so.
 */
export const FORMAT_CHARACTERS_BMP =
  '\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';

/** White space (JavaScript's `\s`) and control characters (category Cc): all in the Basic Multilingual Plane. */
export const WHITE_SPACE_AND_CONTROL = '\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

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
  const message = 'Must not contain control characters, nor invisible format or bidirectional control characters (Unicode category Cf).';
  return wellFormedText(options)
    .regex(new RegExp(`^[^${CONTROL}${FORMAT_CHARACTERS_BMP}]*$`), { message })
    .refine((value) => !hasFormatCharacters(value), { message })
    .transform((value) => value.normalize('NFC'))
    .meta({ description: `${options.description} ${IDENTIFIER_RULE}` });
}

/** How the document states the rule of identifierText. */
const IDENTIFIER_RULE = 'Read in NFC; Unicode format characters refused (see Names).';

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
