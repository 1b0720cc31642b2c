import { MAX_JSON_DEPTH } from '../http/json-depth';

/**
 * Every error condition the service answers with, by a stable name. The name
 * goes out as `messageKey`; `code` is the number the spec's ErrorMessage carries.
 * Numbers are grouped by family (1xxx request, 2xxx not found, 3xxx conflict,
 * 4xxx authentication and authorization, 5xxx server) and never reused once
 * published.
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
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    code: 1007,
    message: 'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
  },
  MALFORMED_HTTP_REQUEST: {
    status: 400,
    code: 1009,
    message: 'The request is not valid HTTP (for example, a control character in a header).',
  },
  REQUEST_HEADERS_TOO_LARGE: { status: 431, code: 1010, message: 'The request headers are too large.' },
  REQUEST_TIMEOUT: { status: 408, code: 1011, message: 'The request was not received in time.' },
  JSON_TOO_DEEP: {
    status: 400,
    code: 1012,
    message: `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
  },
  METHOD_NOT_ALLOWED: { status: 405, code: 1008, message: 'This path does not take this method; the Allow header lists those it takes.' },
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
  AUTHENTICATION_REQUIRED: {
    status: 401,
    code: 4001,
    message: 'A bearer access token is required: Authorization: Bearer <token>.',
  },
  INVALID_TOKEN: {
    status: 401,
    code: 4002,
    message: 'The access token is not accepted; the message says why (expired, malformed, signature, issuer, audience).',
  },
  INVALID_CLIENT_CREDENTIALS: { status: 401, code: 4003, message: 'The client id or client secret is wrong.' },
  SESSION_SECRET_INVALID: {
    status: 401,
    code: 4004,
    message: 'The Platform-Session-Secret header is missing or does not match this customer.',
  },
  INSUFFICIENT_SCOPE: { status: 403, code: 4031, message: 'The access token lacks the scope this operation needs.' },
  LOCATION_NOT_PERMITTED: {
    status: 403,
    code: 4032,
    message: 'The access token is not entitled to act for this location.',
  },
  TOO_MANY_LOGIN_ATTEMPTS: {
    status: 429,
    code: 4291,
    message: 'Too many failed logins for this client; retry after the time Retry-After gives.',
  },
  PAYMENT_INTENT_NOT_FOUND: { status: 404, code: 2006, message: 'The payment intent does not exist.' },
  EVENT_NOT_FOUND: { status: 404, code: 2007, message: 'The event does not exist (or is older than the retention period).' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, code: 2008, message: 'The webhook endpoint does not exist.' },
  REFUND_NOT_FOUND: { status: 404, code: 2009, message: 'The refund does not exist.' },
  MANDATE_NOT_FOUND: { status: 404, code: 2010, message: "The mandate does not exist, or is not this customer's." },
  BATCH_NOT_FOUND: { status: 404, code: 2011, message: 'The batch does not exist: no money moved on that business date (in that currency).' },
  PAYOUT_NOT_FOUND: { status: 404, code: 2012, message: 'The payout does not exist.' },
  DISPUTE_NOT_FOUND: { status: 404, code: 2013, message: 'The dispute does not exist.' },
  SETUP_INTENT_NOT_FOUND: { status: 404, code: 2014, message: 'The setup intent does not exist.' },
  PAYMENT_INTENT_STATUS_CONFLICT: {
    status: 409,
    code: 3002,
    message: 'The payment intent cannot make this change in its current status.',
  },
  CONFLICT: {
    status: 409,
    code: 3001,
    message: 'The request conflicts with a concurrent change. Retry it.',
  },
  IDEMPOTENCY_REQUEST_IN_PROGRESS: {
    status: 409,
    code: 3003,
    message: 'A request with this Idempotency-Key is still being processed. Retry after the time Retry-After gives.',
  },
  CARD_LIMIT_REACHED: {
    status: 409,
    code: 3004,
    message: 'The customer already holds the most saved cards allowed. Remove one before saving another.',
  },
  EXTERNAL_REFERENCE_IN_USE: {
    status: 409,
    code: 3006,
    message: 'Another customer of this location holds this externalReferenceId.',
  },
  FINGERPRINT_IN_USE: {
    status: 409,
    code: 3007,
    message: 'Another card of this customer holds this fingerprint.',
  },
  WEBHOOK_ENDPOINT_DISABLED: {
    status: 409,
    code: 3005,
    message: 'The webhook endpoint is disabled: enable it (PATCH status ENABLED) before redelivering to it.',
  },
  WEBHOOK_ENDPOINT_LIMIT_REACHED: {
    status: 409,
    code: 3008,
    message: 'The location already holds the most webhook endpoints allowed. Remove one before making another.',
  },
  REFUND_EXCEEDS_CAPTURED: {
    status: 409,
    code: 3009,
    message: 'The refund asks for more than is left to refund of the captured amount; the message names what is left.',
  },
  REFUND_WINDOW_CLOSED: {
    status: 409,
    code: 3010,
    message: 'The payment was captured longer ago than REFUND_WINDOW_DAYS allows a refund.',
  },
  OVERCAPTURE_LIMIT_EXCEEDED: {
    status: 409,
    code: 3011,
    message: 'The amount with this tip is more above the authorized amount than OVERCAPTURE_MAX_PERCENT allows; the message names the largest tip.',
  },
  OVERCAPTURE_DECLINED: {
    status: 409,
    code: 3012,
    message: 'The processor refused to capture more than was authorized; the intent can still be captured for the authorized amount.',
  },
  MANDATE_INACTIVE: {
    status: 409,
    code: 3013,
    message: 'The mandate was revoked: no payment is made under it any more. Ask the payor for a new consent (a new mandate).',
  },
  MANDATE_AMOUNT_EXCEEDED: {
    status: 409,
    code: 3014,
    message: "The amount is more than the mandate's maxAmount allows for one charge.",
  },
  PAYOUT_STATUS_CONFLICT: {
    status: 409,
    code: 3015,
    message: 'The payout has arrived or failed already: only a PENDING or IN_TRANSIT payout can fail.',
  },
  DISPUTE_STATUS_CONFLICT: {
    status: 409,
    code: 3016,
    message: 'The dispute cannot make this change in its current stage and status; the message names them.',
  },
  DISPUTE_EVIDENCE_ALREADY_SUBMITTED: {
    status: 409,
    code: 3017,
    message: "The dispute's evidence was submitted already: evidence is submitted once, and cannot change after.",
  },
  DISPUTE_EVIDENCE_DUE_PASSED: {
    status: 409,
    code: 3018,
    message: "The dispute's evidenceDueBy has passed: no evidence is taken any more.",
  },
  DISPUTE_AMOUNT_EXCEEDS_AVAILABLE: {
    status: 409,
    code: 3019,
    message: 'The dispute asks for more than is left of the payment (captured, less refunded, less already disputed); the message names what is left.',
  },
  REFUND_BLOCKED_BY_DISPUTE: {
    status: 409,
    code: 3020,
    message: 'A chargeback holds part of the captured amount, and the refund asks for more than is left; the message names what is left.',
  },
  SETUP_INTENT_STATUS_CONFLICT: {
    status: 409,
    code: 3021,
    message: 'The setup intent cannot make this change in its current status; the message names it.',
  },
  RATE_LIMITED: {
    status: 429,
    code: 4292,
    message: 'Too many requests for this client and location; retry after the time Retry-After gives.',
  },
  INTERNAL_ERROR: { status: 500, code: 5000, message: 'Internal server error.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    code: 5003,
    message: 'The service is temporarily unavailable. Retry later.',
  },
  SERVICE_OVERLOADED: {
    status: 503,
    code: 5006,
    message:
      'The service is at capacity and answered rather than queue the request. Retry after the time Retry-After gives: a connection that asks again sooner gets its next 503 only after a short hold.',
  },
  PAYMENT_PROCESSOR_UNAVAILABLE: {
    status: 503,
    code: 5005,
    message: 'The payment processor did not answer. Nothing was recorded; retry after the time Retry-After gives.',
  },
  IDENTITY_PROVIDER_UNAVAILABLE: {
    status: 503,
    code: 5004,
    message: "The identity provider's signing keys could not be fetched. Retry later.",
  },
} as const satisfies Record<string, { status: number; code: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
