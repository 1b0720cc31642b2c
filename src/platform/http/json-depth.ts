/**
 * How deep a request body may nest arrays and objects. Nothing this service
 * reads goes past four levels; the limit only has to stop a body that would
 * overflow the stack of a recursive walk (the card-number scan, the
 * idempotency fingerprint, zod, the error formatter) long before it can.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether UTF-8 JSON text nests deeper than `maxDepth`, read in one pass over
 * its bytes without recursion or allocation, before it is parsed. Brackets
 * inside strings are skipped. (In UTF-8 no byte of a multi-byte character is
 * ASCII, so bytes are as good as characters here.) Malformed text is left to
 * the parser to refuse.
 */
export function exceedsJsonDepth(body: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < body.length; index += 1) {
    const byte = body[index];
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth -= 1;
    }
  }
  return false;
}
