import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { serviceWrite, type WriteContext } from '../change-log/write-context';
import { closeInquiriesOfRefunded } from '../disputes';
import { findPaymentIntent, refuseUnless, statusesAllowing, type LatestPayment, type PaymentIntentRecord } from '../payment-intents';
import type { PaymentProcessor, RefundOutcome } from '../payment-processor/payment-processor';
import { clockNow } from '../platform/clock/location-clock';
import type { PageQuery } from '../platform/db/cursor-page';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { DomainError } from '../platform/errors/domain-error';
import type { Logger } from '../platform/logger';
import { createPendingRefund, findRefund, listRefunds, pendingRefunds, settleRefund, type RefundRecord } from './refunds.repository';
import { REFUND_CURSOR, type CreateRefundInput } from './refunds.schemas';

export interface RefundSettings {
  /** REFUND_WINDOW_DAYS: how long after its capture a payment may be refunded. */
  refundWindowDays: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The sweep's batch: what one run takes on; the next run takes the rest. */
const SWEEP_BATCH = 100;

/** What a refund may still take of the intent: captured, less refunded, less what chargebacks hold. */
function refundableOf(intent: PaymentIntentRecord): number {
  return intent.amountCaptured - intent.amountRefunded - intent.amountDisputed;
}

/** 409 naming what is left; REFUND_BLOCKED_BY_DISPUTE when a chargeback holds part of the payment. */
function exceedsCaptured(intent: PaymentIntentRecord): DomainError {
  const refundable = refundableOf(intent);
  if (intent.amountDisputed > 0) {
    return new DomainError('REFUND_BLOCKED_BY_DISPUTE', {
      fieldName: 'amount',
      message: `A chargeback holds ${intent.amountDisputed} of the captured amount: ${refundable} (minor units) may still be refunded.`,
    });
  }
  return new DomainError('REFUND_EXCEEDS_CAPTURED', {
    fieldName: 'amount',
    message: `The refund asks for more than is left to refund: ${refundable} (minor units) may still be refunded.`,
  });
}

/**
 * Refunds, the one home of the resource: made (asking the processor),
 * settled, read and listed. Stripe's and Adyen's model (Toast's hosted
 * checkout has none): several partial refunds while their sum stays within
 * what was captured.
 *
 * The refund is made PENDING first, its amount taken from the intent's
 * refundable amount in the same statement (one guarded update, so racing
 * refunds never pass the captured amount); the processor is asked after that
 * commits, never inside a transaction; its answer moves the refund once
 * (a failed one gives its amount back). A refund the processor answers later,
 * or whose answer was lost, stays PENDING until the sweep asks again with
 * the same key (the refund's id).
 */
export class RefundsService {
  constructor(
    private readonly processor: PaymentProcessor,
    private readonly logger: Logger,
    private readonly settings: RefundSettings,
  ) {}

  /** The PENDING refund, with its event; in the caller's transaction (an Idempotency-Key's) or one of its own. */
  async create(write: WriteContext, paymentIntentId: string, input: CreateRefundInput): Promise<RefundRecord> {
    const intent = await findPaymentIntent(write.db, write.locationId, paymentIntentId);
    if (intent === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
    refuseUnless('refund', intent.status);
    this.refuseOutsideWindow(intent);
    const refundable = refundableOf(intent);
    const amount = input.amount ?? refundable;
    if (amount === 0 || amount > refundable) throw exceedsCaptured(intent);
    const made = await createPendingRefund(write, {
      id: uuidv7(),
      paymentIntentId,
      amount,
      reason: input.reason ?? null,
      refundableIn: statusesAllowing('refund'),
    });
    if (made !== undefined) {
      // Nothing left to refund: an open inquiry about the payment ends (Stripe withdraws nothing from a fully refunded payment).
      // Only when the intent was disputed as read: an inquiry opened since is closed by its deadline's rule (nothing left: closed by REFUND).
      if (amount === refundable && intent.disputeStatus !== null) await closeInquiriesOfRefunded(write, paymentIntentId);
      return made;
    }
    // Another refund (or a chargeback) took its share first, or the intent moved: as it now stands.
    const now = (await findPaymentIntent(write.db, write.locationId, paymentIntentId)) as PaymentIntentRecord;
    refuseUnless('refund', now.status);
    throw exceedsCaptured(now);
  }

  /**
   * Asks the processor about a PENDING refund and records its answer; the
   * refund as it then stands (still PENDING if the processor answers later,
   * or not at all). A settled refund is answered as it is.
   */
  async settle(write: WriteContext, refund: RefundRecord): Promise<RefundRecord> {
    if (refund.status !== 'PENDING') return refund;
    const intent = (await findPaymentIntent(write.db, write.locationId, refund.paymentIntentId)) as PaymentIntentRecord;
    let outcome: RefundOutcome;
    try {
      outcome = await this.processor.refund({
        locationId: write.locationId,
        idempotencyKey: refund.id,
        reference: intent.processorReference as string,
        amount: refund.amount,
        card: (intent.latestPayment as LatestPayment).card,
      });
    } catch (error) {
      this.logger.warn(
        { err: error, refundId: refund.id, processor: this.processor.name },
        'the processor did not answer a refund; it stays PENDING until it does',
      );
      return refund;
    }
    if (outcome.status === 'pending') return refund;
    const to = outcome.status === 'succeeded' ? 'SUCCEEDED' : 'FAILED';
    const failureCode = outcome.status === 'failed' ? outcome.error.code : null;
    // Settled by another (a sweep, a replica) first: as it now stands.
    return (await settleRefund(write, refund, to, failureCode)) ?? refund;
  }

  /** The sweep: every PENDING refund left alone for `olderThanSeconds`, asked about again. Answers how many it settled. */
  async settlePending(db: Knex, olderThanSeconds: number, locationId?: string): Promise<number> {
    let settled = 0;
    for (const refund of await pendingRefunds(db, olderThanSeconds, SWEEP_BATCH, locationId)) {
      try {
        const after = await this.settle(serviceWrite(db, refund.locationId), refund);
        if (after.status !== 'PENDING') settled += 1;
      } catch (error) {
        this.logger.warn({ err: error, refundId: refund.id }, 'settling a PENDING refund failed; will retry');
      }
    }
    return settled;
  }

  private refuseOutsideWindow(intent: PaymentIntentRecord): void {
    const capturedAt = intent.capturedAt ?? intent.updatedAt;
    const closesAt = new Date(capturedAt.getTime() + this.settings.refundWindowDays * DAY_MS);
    if (clockNow().getTime() > closesAt.getTime()) {
      throw new DomainError('REFUND_WINDOW_CLOSED', {
        message: `The payment was captured at ${capturedAt.toISOString()}; refunds close ${this.settings.refundWindowDays} days after, at ${closesAt.toISOString()}.`,
      });
    }
  }

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
