import type { Knex } from 'knex';
import type { DisputesService } from '../../disputes';
import { evidenceTypesFor } from '../../disputes';
import { mandateForCharge } from '../../mandates';
import type { PaymentIntentRecord, PaymentIntentsService } from '../../payment-intents';
import type { RefundsService } from '../../refunds';
import { LISTED, type EvidenceDraft } from './dispute-evidence.schemas';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The services the draft reads, each through its own feature. */
export interface DraftSources {
  disputes: DisputesService;
  paymentIntents: PaymentIntentsService;
  refunds: RefundsService;
}

/**
 * A dispute's evidence drafted from what the service already keeps
 * (docs/disputes.md, The evidence draft): the payment (amount, tip, capture,
 * card, the merchant's reference as Toast's check id), its refunds (a
 * credit not processed), the customer's other payments of the same amount
 * within a day of it (a duplicate), and, for a merchant-initiated charge, the
 * mandate's recorded consent (a subscription canceled, an unrecognized
 * charge). It spans four features, so it is a flow; it only reads, and the
 * draft is never submitted by itself: the merchant posts what it keeps of it
 * to the evidence operation.
 */
export class DisputeEvidenceFlow {
  async draft(db: Knex, locationId: string, disputeId: string, sources: DraftSources): Promise<EvidenceDraft> {
    const dispute = await sources.disputes.get(db, locationId, disputeId);
    const intent = await sources.paymentIntents.get(db, locationId, dispute.paymentIntentId);
    const refunds = (await sources.refunds.listOfIntent(db, locationId, intent.id, { limit: LISTED })).refunds;
    const capturedAt = intent.capturedAt ?? intent.updatedAt;
    const sameAmount = await this.sameAmountWithinADay(db, locationId, intent, capturedAt, sources.paymentIntents);
    const mandate =
      intent.mandateId === null || intent.customerId === null ? undefined : await mandateForCharge(db, locationId, intent.customerId, intent.mandateId);
    const card = intent.latestPayment?.card;
    const explanation = [
      `Payment ${intent.externalReferenceId} of ${intent.amountCaptured} (minor units, ${intent.currency}${intent.tip > 0 ? `, of which a tip of ${intent.tip}` : ''}) was captured on ${capturedAt.toISOString()}${card === undefined ? '' : ` from the ${card.brand} card ending ${card.lastFour}`}.`,
      refunds.length === 0
        ? 'No refund was made.'
        : `Refunds: ${refunds.map((refund) => `${refund.amount} ${refund.status} on ${refund.createdAt.toISOString()}`).join('; ')}.`,
      ...(mandate === undefined
        ? []
        : [
            `The charge was made under the payor's mandate, whose terms (${mandate.consent.textVersion}) they accepted on ${mandate.consent.acceptedAt.toISOString()}${mandate.consent.channel === null ? '' : ` (${mandate.consent.channel})`}.`,
          ]),
    ].join(' ');
    return {
      disputeId: dispute.id,
      reason: dispute.reason,
      evidence: {
        explanation,
        serviceDate: capturedAt.toISOString().slice(0, 10),
        receiptReference: intent.externalReferenceId,
        customerEmail: intent.email,
        documentTypesNeeded: [...evidenceTypesFor(dispute.reason)],
      },
      payment: {
        id: intent.id,
        externalReferenceId: intent.externalReferenceId,
        amountCaptured: intent.amountCaptured,
        tip: intent.tip,
        currency: intent.currency,
        capturedAt: capturedAt.toISOString(),
        card: card === undefined ? null : { brand: card.brand, lastFour: card.lastFour },
      },
      refunds: refunds.map((refund) => ({ id: refund.id, amount: refund.amount, status: refund.status, createdAt: refund.createdAt.toISOString() })),
      sameAmountWithinADay: sameAmount.map((other) => ({
        id: other.id,
        externalReferenceId: other.externalReferenceId,
        amountCaptured: other.amountCaptured,
        capturedAt: (other.capturedAt ?? other.updatedAt).toISOString(),
      })),
      mandateConsent:
        mandate === undefined
          ? null
          : {
              mandateId: mandate.id,
              textVersion: mandate.consent.textVersion,
              acceptedAt: mandate.consent.acceptedAt.toISOString(),
              channel: mandate.consent.channel,
            },
    };
  }

  /** The customer's other captured payments of the same amount, made within a day either side of this one's capture. */
  private async sameAmountWithinADay(
    db: Knex,
    locationId: string,
    intent: PaymentIntentRecord,
    capturedAt: Date,
    paymentIntents: PaymentIntentsService,
  ): Promise<PaymentIntentRecord[]> {
    if (intent.customerId === null) return [];
    const { intents } = await paymentIntents.list(db, locationId, {
      customerId: intent.customerId,
      status: 'SUCCEEDED',
      createdAfter: new Date(capturedAt.getTime() - DAY_MS).toISOString(),
      createdBefore: new Date(capturedAt.getTime() + DAY_MS).toISOString(),
      limit: LISTED,
    });
    return intents.filter((other) => other.id !== intent.id && other.amountCaptured === intent.amountCaptured);
  }
}
