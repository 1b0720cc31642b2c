/**
 * What the payment-methods feature offers the other features and the flows:
 * a saved card, locked while a payment uses it, and the erasure's steps on
 * the customer's cards and defaults. Nothing else of the feature is imported
 * from outside it.
 */
export { cardLimitReached, saveCard } from './card-save';
export { defaultCardOf, eraseCardsOf, lockCardForPayment, roomForCard } from './payment-methods.face';
export { contextNameSchema, createPaymentMethodRequestSchema, toPaymentMethodData, type CreatePaymentMethodInput } from './payment-methods.schemas';
