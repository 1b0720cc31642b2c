/**
 * Finds full card numbers (PANs) in free text so they can be refused before they
 * are stored or logged: a run of 13 to 19 digits, optionally grouped by single
 * spaces or dashes, that passes the Luhn check. A longer run of digits is not a
 * card number (an order number, a phone number with country code...), so runs are
 * taken whole rather than scanned window by window, which would refuse one in
 * ten long numeric references.
 */
const DIGIT_RUN = /\d(?:[ -]?\d)*/g;

// A UUID's dash-separated digit groups can line up into 13 to 19 digits that
// pass Luhn (about one random UUID in a few hundred, and references like
// `order-<uuid>` are common): a UUID is an identifier, never a card number, so
// UUIDs are blanked out before the scan.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/**
 * Whether some run of DIGIT_RUN's shape holds 13 digits, without allocating:
 * nothing shorter can be a PAN. Most text checked (ids, UUIDs, names) has no
 * such run, and skips the costlier scan below.
 */
function hasThirteenDigitRun(text: string): boolean {
  let digits = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (isDigit(code)) {
      digits += 1;
      if (digits >= 13) return true;
    } else if (!((code === 32 || code === 45) && digits > 0 && isDigit(text.charCodeAt(index + 1)))) {
      // Anything but a single space or dash between two digits ends the run.
      digits = 0;
    }
  }
  return false;
}

export function containsCardNumber(text: string): boolean {
  if (!hasThirteenDigitRun(text)) return false;

  for (const match of text.replace(UUID, ' ').matchAll(DIGIT_RUN)) {
    const digits = match[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) return true;
  }
  return false;
}

/** A key that holds a card number is named with its digits masked: the name goes back to the caller and into logs. */
function maskDigits(key: string): string {
  return key.replace(/\d/g, '*');
}

/**
 * The dotted path of the first value in a parsed request (strings, and numbers,
 * which JSON can carry a PAN in too) that holds a card number; undefined if none.
 */
export function findCardNumberField(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') {
    return containsCardNumber(String(value)) ? path.join('.') : undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      // A key can carry a PAN as well as a value can.
      if (containsCardNumber(key)) return [...path, maskDigits(key)].join('.');
      const found = findCardNumberField(child, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
