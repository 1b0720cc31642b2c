/**
 * Every error condition the service answers with, by a stable name. The name
 * goes out as `messageKey`; `code` is the number the spec's ErrorMessage carries.
 * Numbers are grouped by family (1xxx request, 2xxx not found, 3xxx conflict,
 * 5xxx server) and never reused once published.
 */
export const ERROR_CATALOG = {
  VALIDATION_FAILED: { status: 400, code: 1000, message: 'The request has invalid or missing fields.' },
  MALFORMED_JSON: { status: 400, code: 1001, message: 'The request body is not valid JSON.' },
  BODY_REQUIRED: { status: 400, code: 1002, message: 'The request body must be a JSON object.' },
  LOCATION_HEADER_INVALID: {
    status: 400,
    code: 1003,
    message: 'The Platform-Restaurant-External-ID header is missing or invalid.',
  },
  CARD_NUMBER_REJECTED: {
    status: 400,
    code: 1004,
    message: 'A full card number was sent. Send only the card metadata the vault returns (brand, last four, expiry).',
  },
  PAYLOAD_TOO_LARGE: { status: 413, code: 1005, message: 'The request body is larger than 100 kB.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    code: 1006,
    message: 'The request body must be JSON (application/json, UTF-8, not compressed).',
  },
  CUSTOMER_NOT_FOUND: { status: 404, code: 2001, message: 'The customer record does not exist.' },
  PAYMENT_METHOD_NOT_FOUND: { status: 404, code: 2002, message: 'The payment method does not exist.' },
  PAYMENT_METHOD_NOT_OWNED: {
    status: 404,
    code: 2003,
    message: 'The payment method does not belong to this customer.',
  },
  DEFAULT_PAYMENT_METHOD_NOT_SET: {
    status: 404,
    code: 2004,
    message: 'No default payment method is set for this context name.',
  },
  ROUTE_NOT_FOUND: { status: 404, code: 2005, message: 'No operation exists at this path.' },
  CONFLICT: {
    status: 409,
    code: 3001,
    message: 'The request conflicts with a concurrent change. Retry it.',
  },
  INTERNAL_ERROR: { status: 500, code: 5000, message: 'Internal server error.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    code: 5003,
    message: 'The service is temporarily unavailable. Retry later.',
  },
} as const satisfies Record<string, { status: number; code: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
