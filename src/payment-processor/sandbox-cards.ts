import { byCodeUnits } from '../platform/code-unit-order';
import type { PaymentError, ProcessorCard } from './payment-processor';

/**
 * What the sandbox answers for a card, by its last four digits, as processors'
 * test cards do. Every other card is approved. The document's confirm
 * operation and docs/checkout.md's table are rendered from here (sandboxCardTable).
 */
export const SANDBOX_CARDS = {
  '0002': { code: 'card_declined', declineCode: 'generic_decline', message: 'The card was declined.' },
  '9995': { code: 'card_declined', declineCode: 'insufficient_funds', message: 'The card has insufficient funds.' },
  '0069': { code: 'expired_card', declineCode: null, message: 'The card has expired.' },
  '0119': { code: 'processing_error', declineCode: null, message: 'An error occurred while processing the card. Try again.' },
} as const satisfies Record<string, PaymentError>;

/** Approved when authorized, then every capture of it fails. */
export const CAPTURE_FAILS_LAST_FOUR = '0259';

export const CAPTURE_FAILED: PaymentError = {
  code: 'capture_failed',
  declineCode: null,
  message: 'The processor could not capture this authorization.',
};

/**
 * Authorizes at most PARTIAL_AUTHORIZATION_LIMIT (a gift card's balance): less with partial authorization, else
 * declined for insufficient funds; a capture above what it authorized is refused (the balance holds no tip).
 */
export const PARTIAL_AUTHORIZATION_LAST_FOUR = '0044';
export const PARTIAL_AUTHORIZATION_LIMIT = 2_500;

/** Approved as any other, but a capture above the authorized amount (a tip added at capture) is refused. */
export const OVERCAPTURE_FAILS_LAST_FOUR = '0127';

/** Declined when the merchant charges it off-session (the issuer wants the payor to authenticate); approved on-session. */
export const AUTHENTICATION_REQUIRED_LAST_FOUR = '3184';

export const AUTHENTICATION_REQUIRED: PaymentError = {
  code: 'card_declined',
  declineCode: 'authentication_required',
  message: 'The issuer asks the payor to authenticate: have them pay on-session.',
};

/** Approved and captured as any other, then every refund of it fails. */
export const REFUND_FAILS_LAST_FOUR = '0341';
/** Approved and captured as any other; its refunds are answered later (PENDING, then SUCCEEDED after SANDBOX_ASYNC_REFUND_SECONDS). */
export const REFUND_LATER_LAST_FOUR = '0358';

/**
 * Approved and captured as any other; SANDBOX_DISPUTE_AFTER_SECONDS after the
 * capture, on the location's clock, the cardholder disputes all that is left
 * of it (Stripe's last fours: `2685` a chargeback for a product not
 * received, `1976` an inquiry). Stripe's fraudulent-dispute card ends `0259`,
 * which here has long meant "every capture fails": it keeps that meaning,
 * and a fraudulent dispute comes from the sandbox's open-a-dispute helper.
 */
export const DISPUTE_CARDS = {
  '1976': { stage: 'INQUIRY', reason: 'GENERAL' },
  '2685': { stage: 'CHARGEBACK', reason: 'PRODUCT_NOT_RECEIVED' },
} as const;
export const SANDBOX_DISPUTE_AFTER_SECONDS = 60;

export const REFUND_DECLINED: PaymentError = {
  code: 'refund_declined',
  declineCode: null,
  message: 'The processor declined the refund.',
};

const EXPIRED = SANDBOX_CARDS['0069'];

/** A processing error is the processor's fault, not the card's: the other codes are declines. */
export function isProcessingError(error: PaymentError): boolean {
  return error.code === SANDBOX_CARDS['0119'].code;
}

/** Whether the card's expiry month has passed at `now` (a card is good through its month's last day). */
export function hasExpired(expiry: ProcessorCard['expiry'], now: Date): boolean {
  const expiryMonth = Number(expiry.year) * 12 + Number(expiry.month) - 1;
  return expiryMonth < now.getUTCFullYear() * 12 + now.getUTCMonth();
}

/** The sandbox's verdict on authorizing `card` at `now`, by whom the charge is started: undefined is approved. */
export function sandboxDecline(card: ProcessorCard, now: Date, initiator: 'customer' | 'merchant'): PaymentError | undefined {
  const byNumber = (SANDBOX_CARDS as Record<string, PaymentError>)[card.lastFour];
  if (byNumber !== undefined) return byNumber;
  if (card.lastFour === AUTHENTICATION_REQUIRED_LAST_FOUR && initiator === 'merchant') return AUTHENTICATION_REQUIRED;
  return hasExpired(card.expiry, now) ? EXPIRED : undefined;
}

/** The sandbox's test cards as a Markdown table: the confirm operation's description and docs/checkout.md both show it. */
export function sandboxCardTable(): string {
  const outcome = (error: PaymentError) =>
    isProcessingError(error)
      ? `\`${error.code}\` (retry with a confirm; the intent is back to \`REQUIRES_PAYMENT_METHOD\`)`
      : `declined: \`${error.code}\`${error.declineCode === null ? '' : ` / \`${error.declineCode}\``}`;
  return [
    '| Last four | Outcome |',
    '|---|---|',
    // Sorted: an object's own keys that read as integers (9995) would otherwise come first.
    ...Object.entries(SANDBOX_CARDS)
      .sort(([a], [b]) => byCodeUnits(a, b))
      .map(([lastFour, error]) => `| \`${lastFour}\` | ${outcome(error)} |`),
    `| \`${CAPTURE_FAILS_LAST_FOUR}\` | approved, but every capture fails (\`${CAPTURE_FAILED.code}\`); with \`AUTOMATIC\` the confirm fails with it |`,
    `| \`${PARTIAL_AUTHORIZATION_LAST_FOUR}\` | authorizes at most ${PARTIAL_AUTHORIZATION_LIMIT} (minor units): with \`paymentMethodOptions.card.partialAuthorization\`, approved for that much (\`amount\` becomes it, \`amountRequested\` keeps what was asked); without, declined: \`${SANDBOX_CARDS['9995'].code}\` / \`${SANDBOX_CARDS['9995'].declineCode}\`; a capture above what it authorized (a tip added at capture) is refused: 409 \`OVERCAPTURE_DECLINED\` |`,
    `| \`${OVERCAPTURE_FAILS_LAST_FOUR}\` | approved; a capture above the authorized amount (a tip added at capture) is refused: 409 \`OVERCAPTURE_DECLINED\`, the intent still capturable |`,
    `| \`${AUTHENTICATION_REQUIRED_LAST_FOUR}\` | off-session (\`offSession: true\`, a merchant-initiated charge): declined: \`${AUTHENTICATION_REQUIRED.code}\` / \`${AUTHENTICATION_REQUIRED.declineCode}\`; on-session: approved |`,
    `| \`${REFUND_FAILS_LAST_FOUR}\` | approved; every refund of it fails (\`FAILED\`, \`failureCode: ${REFUND_DECLINED.code}\`) |`,
    `| \`${REFUND_LATER_LAST_FOUR}\` | approved; its refunds are answered later: \`PENDING\`, then \`SUCCEEDED\` within SANDBOX_ASYNC_REFUND_SECONDS |`,
    ...Object.entries(DISPUTE_CARDS).map(
      ([lastFour, dispute]) =>
        `| \`${lastFour}\` | approved; ${SANDBOX_DISPUTE_AFTER_SECONDS} s after its capture (on the location's clock) the cardholder opens ${dispute.stage === 'INQUIRY' ? 'an inquiry' : 'a chargeback'} (\`${dispute.reason}\`) of all that is left to refund |`,
    ),
    `| a card whose expiry month has passed | declined: \`${EXPIRED.code}\` |`,
    '| any other | approved |',
  ].join('\n');
}
