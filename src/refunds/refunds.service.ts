import type { Knex } from 'knex';
import { findPaymentIntent } from '../payment-intents';
import type { PageQuery } from '../platform/db/cursor-page';
import { DomainError } from '../platform/errors/domain-error';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { findRefund, listRefunds, type RefundRecord } from './refunds.repository';
import { REFUND_CURSOR } from './refunds.schemas';

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
    await refuseUnknownCursor(
      page.startingAfter,
      REFUND_CURSOR,
      async (after) => (await findRefund(db, locationId, after))?.paymentIntentId === paymentIntentId,
    );
    return listRefunds(db, locationId, paymentIntentId, page);
  }
}
