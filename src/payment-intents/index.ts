/**
 * What the payment-intents feature offers the flows and the feature above it
 * (the checkout, refunds): the record's reads and locks, move(), the way one
 * intent changes status (the customer erasure's cancel of all of a
 * customer's intents is one statement, whose from-statuses the same status
 * table gives: statusesMovedBy('erasure', 'CANCELED')), and the statuses the
 * status table lets an operation act in. Nothing else of the feature is
 * imported from outside it.
 */
export { mandateOfIntent } from './intent-mandate';
export { move, notTheCustomersCard, refuseUnless, statusConflict, type IntentStep } from './payment-intent-moves';
export {
  dueAuthorizations,
  eraseIntentsOfCustomer,
  findPaymentIntent,
  lockPaymentIntent,
  stuckInProcessing,
  type CancellationReason,
  type IntentChanges,
  type LatestPayment,
  type PaymentIntentRecord,
} from './payment-intents.face';
export {
  cancelPaymentIntentRequestSchema,
  capturePaymentIntentRequestSchema,
  confirmPaymentIntentRequestSchema,
  MAX_AMOUNT,
  paymentIntentParamsSchema,
  paymentIntentSchema,
  toPaymentIntent,
  toPaymentIntentEventObject,
} from './payment-intents.schemas';
export { STATUS_TABLE_POINTER } from './payment-intent-lifecycle';
export { statusesAllowing } from './payment-intent-status';
export type { PaymentIntentsService } from './payment-intents.service';
