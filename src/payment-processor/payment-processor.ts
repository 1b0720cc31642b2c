/**
 * The port a payment processor is reached through: authorize, capture, void,
 * refund and verify (a card saved without a payment), each with an idempotency key, so that asking again (a retry,
 * the recovery of an intent left PROCESSING by a crash) gets the first answer
 * back instead of a second charge. One implementation today, the sandbox
 * (sandbox-processor.ts); a real one is another class behind this interface.
 */
export interface PaymentProcessor {
  readonly name: string;
  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome>;
  capture(request: CaptureRequest): Promise<CaptureOutcome>;
  void(request: VoidRequest): Promise<VoidOutcome>;
  /** Asked again with the same key, it answers the refund as it now stands (a PENDING one may have settled). */
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /** A $0 authorization of a card the payor is saving (a setup intent's confirm): the issuer says whether the card is good. */
  verify(request: VerifyRequest): Promise<VerifyOutcome>;
}

/** The saved card's metadata (never its number: the vault holds that). */
export interface ProcessorCard {
  brand: string;
  lastFour: string;
  expiry: { month: string; year: string };
}

/** Why a payment failed, as the intent's `lastPaymentError` shows it. */
export interface PaymentError {
  code: string;
  declineCode: string | null;
  message: string;
}

interface KeyedRequest {
  /** The merchant the processor acts for: the location. */
  locationId: string;
  idempotencyKey: string;
}

export interface AuthorizeRequest extends KeyedRequest {
  amount: number;
  currency: string;
  card: ProcessorCard;
  /** Capture at once (a sale): an intent whose `captureMethod` is AUTOMATIC. */
  capture: boolean;
  /** Take an approval of less than `amount` (what the card can pay) rather than a decline. */
  partialAuthorization: boolean;
  /**
   * Who starts the charge, as card networks mark it: the payor, present
   * (`customer`), or the merchant under a stored-credential agreement
   * (`merchant`, an off-session intent), with the mandate it is made under.
   */
  initiator: 'customer' | 'merchant';
  mandateId: string | null;
}

/** `amount`: what was authorized, less than asked only with `partialAuthorization` (an answer stored before it existed has none: all of it). */
export type AuthorizeOutcome =
  | { status: 'approved'; reference: string; captured: boolean; amount?: number }
  | { status: 'declined'; error: PaymentError }
  | { status: 'failed'; error: PaymentError };

export interface CaptureRequest extends KeyedRequest {
  /** What the authorization answered (`approved.reference`). */
  reference: string;
  amount: number;
}

/**
 * `voided`: the authorization was voided first (a cancel racing the capture, or the capture window).
 * `overcapture_declined`: a capture above the authorized amount refused; the authorization stands, capturable as it was.
 */
export type CaptureOutcome =
  { status: 'captured'; amount: number } | { status: 'voided' } | { status: 'failed'; error: PaymentError } | { status: 'overcapture_declined' };

export interface VoidRequest extends KeyedRequest {
  reference: string;
}

/** A void after a capture that the service never recorded (a crash between the two) finds the money taken. */
export type VoidOutcome = { status: 'voided' } | { status: 'already_captured'; amount: number };

export interface RefundRequest extends KeyedRequest {
  /** The captured authorization's reference. */
  reference: string;
  amount: number;
  /** The card the captured payment was made with (the sandbox decides by it). */
  card: ProcessorCard;
}

/** `pending`: the processor answers later; ask again with the same key to learn how it ended. */
export type RefundOutcome = { status: 'succeeded' } | { status: 'pending' } | { status: 'failed'; error: PaymentError };

export interface VerifyRequest extends KeyedRequest {
  card: ProcessorCard;
  /** Kept for charges the merchant starts later (a setup intent's OFF_SESSION usage): networks mark the first use so. */
  forLaterMerchantCharges: boolean;
}

/** `approved`: the card is good, with the processor's reference of the verification. */
export type VerifyOutcome = { status: 'approved'; reference: string } | { status: 'declined'; error: PaymentError } | { status: 'failed'; error: PaymentError };

/**
 * The keys of one confirm attempt: the intent's id and its attempt number (a
 * confirm after a decline is a new attempt, which must not replay the
 * decline), then which operation.
 */
export function processorKeys(intentId: string, attempt: number): { authorize: string; capture: string; void: string } {
  const base = `${intentId}:${attempt}`;
  return { authorize: base, capture: `${base}:capture`, void: `${base}:void` };
}
