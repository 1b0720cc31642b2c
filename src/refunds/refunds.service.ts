import type { Knex } from 'knex';
import { findPaymentIntent } from '../payment-intents';
import type { PageQuery } from '../platform/db/cursor-page';
import { DomainError } from '../platform/errors/domain-error';
import { findRefund, listRefunds, type RefundRecord } from './refunds.repository';

/**
 * Refunds, the record: reads. Making a refund asks the processor, so it is
 * the refunds flow's (src/flows/refunds), which records through this
 * feature's repository.
 */
export class RefundsService {
  async get(db: Knex, locationId: string, id: string): Promise<RefundRecord> {
    const refund = await findRefund(db, locationId, id);
    if (refund === undefined) throw new DomainError('REFUND_NOT_FOUND');
    return refund;
  }

  /** An intent's refunds, newest first; 404 for an intent this location does not have. */
  async listOfIntent(db: Knex, locationId: string, paymentIntentId: string, page: PageQuery): Promise<{ refunds: RefundRecord[]; hasMore: boolean }> {
    if ((await findPaymentIntent(db, locationId, paymentIntentId)) === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
    if (page.startingAfter !== undefined) {
      const after = await findRefund(db, locationId, page.startingAfter);
      if (after?.paymentIntentId !== paymentIntentId) {
        throw new DomainError('VALIDATION_FAILED', {
          fieldName: 'startingAfter',
          message: "Must be the id of one of this payment intent's refunds: the last one of the previous page.",
        });
      }
    }
    return listRefunds(db, locationId, paymentIntentId, page);
  }
}
