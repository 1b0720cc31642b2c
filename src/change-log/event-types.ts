/** Every event type, exactly as integrators subscribe to them (docs/events-and-webhooks.md). */
export const EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'payment_method.attached',
  'payment_method.updated',
  'payment_method.detached',
  'default_payment_method.set',
  'default_payment_method.removed',
  'payment_intent.created',
  'payment_intent.updated',
  'payment_intent.canceled',
  'payment_intent.processing',
  'payment_intent.requires_capture',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'setup_intent.created',
  'setup_intent.succeeded',
  'setup_intent.setup_failed',
  'setup_intent.canceled',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'dispute.created',
  'dispute.updated',
  'dispute.funds_withdrawn',
  'dispute.funds_reinstated',
  'dispute.closed',
  'mandate.created',
  'mandate.revoked',
  'location_settings.updated',
  'batch.closed',
  'payout.created',
  'payout.paid',
  'payout.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The resource an event type is about: the part before its dot (`payment_intent` of `payment_intent.canceled`). */
export function resourceOf(type: string): string {
  return type.slice(0, type.indexOf('.'));
}
