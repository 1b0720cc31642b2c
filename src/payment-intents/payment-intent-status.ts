/**
 * A payment intent's statuses and the moves between them: the one table the
 * service and its OpenAPI document both read. In this service only create
 * (to REQUIRES_PAYMENT_METHOD) and cancel move an intent; the other moves are
 * the processor's, listed so that a status read back is always explainable.
 */
export const PAYMENT_INTENT_STATUSES = [
  'REQUIRES_PAYMENT_METHOD',
  'REQUIRES_CONFIRMATION',
  'PROCESSING',
  'REQUIRES_CAPTURE',
  'SUCCEEDED',
  'CANCELED',
] as const;

export type PaymentIntentStatus = (typeof PAYMENT_INTENT_STATUSES)[number];

export const PAYMENT_INTENT_TRANSITIONS: Readonly<Record<PaymentIntentStatus, readonly PaymentIntentStatus[]>> = {
  REQUIRES_PAYMENT_METHOD: ['REQUIRES_CONFIRMATION', 'PROCESSING', 'CANCELED'],
  REQUIRES_CONFIRMATION: ['REQUIRES_PAYMENT_METHOD', 'PROCESSING', 'CANCELED'],
  PROCESSING: ['REQUIRES_PAYMENT_METHOD', 'REQUIRES_CAPTURE', 'SUCCEEDED', 'CANCELED'],
  REQUIRES_CAPTURE: ['SUCCEEDED', 'CANCELED'],
  SUCCEEDED: [],
  CANCELED: [],
};

/** The statuses from which `to` may be reached. */
export function statusesLeadingTo(to: PaymentIntentStatus): PaymentIntentStatus[] {
  return PAYMENT_INTENT_STATUSES.filter((from) => PAYMENT_INTENT_TRANSITIONS[from].includes(to));
}

/** A session secret is live only while its intent can still be paid. */
export const FINAL_STATUSES: readonly PaymentIntentStatus[] = ['SUCCEEDED', 'CANCELED'];
