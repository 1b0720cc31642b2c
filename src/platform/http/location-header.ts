import type { RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error';
import { containsCardNumber } from '../validation/card-number';
import { hasControlCharacters, hasFormatCharacters } from '../validation/text.schemas';

export const LOCATION_HEADER = 'Platform-Restaurant-External-ID';
const MAX_LOCATION_LENGTH = 255;

function occurrences(rawHeaders: string[], name: string): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === name) count += 1;
  }
  return count;
}

/**
 * Header values arrive as bytes, one Latin-1 character each; read as the
 * UTF-8 they are sent in, a location id must hold no format character and be
 * in Unicode NFC. Location ids are matched exactly against stored rows and
 * token entitlements, so rather than normalize one (and miss rows stored under
 * the form it was sent in), a location id that could be written two ways is
 * refused. The id itself is kept as read, as it always was.
 */
function ambiguousUnicode(value: string): boolean {
  // eslint-disable-next-line no-control-regex -- plain ASCII, the usual case, needs no decoding
  if (/^[\x00-\x7f]*$/.test(value)) return false;
  const text = Buffer.from(value, 'latin1').toString('utf8');
  return hasFormatCharacters(text) || text.normalize('NFC') !== text;
}

/**
 * Every /v1 record belongs to the location it was made under, so a request
 * must say which location it acts for. Node joins a repeated header with ", ",
 * which would silently read as another location: a repeat is refused.
 */
export function locationHeader(): RequestHandler {
  const lowerName = LOCATION_HEADER.toLowerCase();
  return (request, _response, next) => {
    const value = request.headers[lowerName];
    const problem =
      typeof value !== 'string' || value.length === 0
        ? `The ${LOCATION_HEADER} header is required.`
        : value.length > MAX_LOCATION_LENGTH
          ? `The ${LOCATION_HEADER} header must be at most ${MAX_LOCATION_LENGTH} characters.`
          : hasControlCharacters(value)
            ? `The ${LOCATION_HEADER} header must not contain control characters.`
            : ambiguousUnicode(value)
              ? `The ${LOCATION_HEADER} header must be UTF-8 in Unicode NFC, without invisible format characters.`
              : occurrences(request.rawHeaders, lowerName) > 1
                ? `The ${LOCATION_HEADER} header must be sent once.`
                : undefined;
    if (problem !== undefined) {
      throw new DomainError('LOCATION_HEADER_INVALID', { message: problem, fieldName: LOCATION_HEADER });
    }
    if (containsCardNumber(value as string)) {
      throw new DomainError('CARD_NUMBER_REJECTED', { fieldName: LOCATION_HEADER });
    }
    request.locationId = value as string;
    next();
  };
}
