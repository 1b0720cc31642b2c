/**
 * A payment intent's statuses and every move between them: the one table the
 * service, its 409 answers, its OpenAPI document and the tests of every
 * (status, operation) pair all read.
 */
export const PAYMENT_INTENT_STATUSES = ['REQUIRES_PAYMENT_METHOD', 'REQUIRES_CONFIRMATION', 'PROCESSING', 'REQUIRES_CAPTURE', 'SUCCEEDED', 'CANCELED'] as const;

export type PaymentIntentStatus = (typeof PAYMENT_INTENT_STATUSES)[number];

/** The operations that act on an existing intent, by the name the table gives them. */
export const INTENT_OPERATIONS = ['update', 'confirm', 'capture', 'cancel', 'refund'] as const;
export type IntentOperation = (typeof INTENT_OPERATIONS)[number];

/** What makes a move: an operation of the API, or the service itself (the processor's answer, the capture window, a customer's erasure). */
export type MoveCause = IntentOperation | 'processor' | 'capture window' | 'expiry' | 'erasure';

export interface IntentMove {
  by: MoveCause;
  from: readonly PaymentIntentStatus[];
  to: PaymentIntentStatus;
  /** When the move is made, for the document. */
  when: string;
}

const UNPAID = ['REQUIRES_PAYMENT_METHOD', 'REQUIRES_CONFIRMATION'] as const;

export const PAYMENT_INTENT_MOVES: readonly IntentMove[] = [
  { by: 'update', from: UNPAID, to: 'REQUIRES_CONFIRMATION', when: 'a `paymentMethodId` is attached' },
  {
    by: 'update',
    from: ['REQUIRES_CONFIRMATION'],
    to: 'REQUIRES_PAYMENT_METHOD',
    when: 'the card is detached (`paymentMethodId: null`, or another `customerId`)',
  },
  { by: 'confirm', from: UNPAID, to: 'PROCESSING', when: 'committed before the processor is asked' },
  { by: 'processor', from: ['PROCESSING'], to: 'REQUIRES_CAPTURE', when: 'the card is approved and `captureMethod` is MANUAL' },
  { by: 'processor', from: ['PROCESSING'], to: 'SUCCEEDED', when: 'the card is approved and `captureMethod` is AUTOMATIC' },
  { by: 'processor', from: ['PROCESSING'], to: 'REQUIRES_PAYMENT_METHOD', when: 'the card is declined or the processor fails (`lastPaymentError` says why)' },
  {
    by: 'capture',
    from: ['REQUIRES_CAPTURE'],
    to: 'SUCCEEDED',
    when: 'the processor captures (a failed capture leaves REQUIRES_CAPTURE, with `lastPaymentError`)',
  },
  { by: 'cancel', from: [...UNPAID, 'REQUIRES_CAPTURE'], to: 'CANCELED', when: 'an authorization is voided at the processor first' },
  {
    by: 'capture window',
    from: ['REQUIRES_CAPTURE'],
    to: 'CANCELED',
    when: 'not captured within CAPTURE_WINDOW_SECONDS: voided, `cancellationReason` AUTOMATIC',
  },
  {
    by: 'capture window',
    from: ['REQUIRES_CAPTURE'],
    to: 'SUCCEEDED',
    when: 'the processor answers the void that it had captured it (a capture whose record was lost): the capture is recorded',
  },
  {
    by: 'expiry',
    from: UNPAID,
    to: 'CANCELED',
    when: 'still unpaid INTENT_EXPIRY_HOURS (24) after `creationDate`: `cancellationReason` EXPIRED, the session secret dead at once',
  },
  { by: 'erasure', from: UNPAID, to: 'CANCELED', when: "the intent's customer is erased (nothing is held at the processor)" },
  {
    by: 'refund',
    from: ['SUCCEEDED'],
    to: 'SUCCEEDED',
    when: 'a refund takes its amount from what is left of the captured amount (the status stays; `amountRefunded` grows)',
  },
];

/** Every other status an intent may move to from `from`, by any cause (a refund keeps SUCCEEDED where it is). */
export function nextStatuses(from: PaymentIntentStatus): PaymentIntentStatus[] {
  return [...new Set(PAYMENT_INTENT_MOVES.filter((move) => move.from.includes(from) && move.to !== from).map((move) => move.to))];
}

/** The statuses in which an operation is allowed; in any other it answers 409 naming the status. */
export function statusesAllowing(operation: IntentOperation): PaymentIntentStatus[] {
  const from = new Set(PAYMENT_INTENT_MOVES.filter((move) => move.by === operation).flatMap((move) => move.from));
  return PAYMENT_INTENT_STATUSES.filter((status) => from.has(status));
}

export function allows(operation: IntentOperation, status: PaymentIntentStatus): boolean {
  return statusesAllowing(operation).includes(status);
}

/** A session secret is live only while its intent can still be paid. */
export const FINAL_STATUSES: readonly PaymentIntentStatus[] = PAYMENT_INTENT_STATUSES.filter((status) => nextStatuses(status).length === 0);

/** The statuses from which `by` moves an intent to `to` (none if the table has no such move). */
export function statusesMovedBy(by: MoveCause, to: PaymentIntentStatus): PaymentIntentStatus[] {
  return PAYMENT_INTENT_STATUSES.filter((status) => PAYMENT_INTENT_MOVES.some((move) => move.by === by && move.to === to && move.from.includes(status)));
}
