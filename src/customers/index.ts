/**
 * What the customers feature offers the other features and the flows: the
 * reads that tell whether a customer is there (or was, before an erasure),
 * and the erasure's steps on the customer's own rows. Nothing else of the
 * feature is imported from outside it.
 */
export { customerExists, eraseCustomerLeavingItsId, isOrWasCustomer, lockCustomerForErasure } from './customers.face';
export { customerDeletedResponseSchema, customerIdParamsSchema, customerIdPathParameter } from './customers.schemas';
