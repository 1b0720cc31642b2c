import type { Knex } from 'knex';
import type { MandateRecord } from '../../mandates';
import { notTheCustomersCard, type PaymentIntentRecord } from '../../payment-intents';
import { defaultCardOf, lockCardForPayment } from '../../payment-methods';
import { DomainError } from '../../platform/errors/domain-error';

/** What a charge needs of the card it is made on. */
export interface CardToCharge {
  id: string;
  brand: string;
  lastFour: string;
  expMonth: string;
  expYear: string;
}

/**
 * The card a confirm charges: the one it names, else the one attached to the
 * intent, else its mandate's, else the customer's default for the intent's
 * `contextName` (a subscription charges "the card for gold-plan" without
 * asking which card that is). An off-session charge is made on its mandate's
 * card only, and (Toast's rule) still when the payor has removed that card,
 * from what the ACTIVE mandate kept of it. A saved card is locked until the
 * confirm's move commits.
 */
export async function cardToCharge(
  trx: Knex.Transaction,
  intent: PaymentIntentRecord,
  mandate: MandateRecord | undefined,
  named: string | undefined,
): Promise<CardToCharge> {
  const { locationId, customerId } = intent;
  let cardId = named ?? intent.paymentMethodId ?? mandate?.paymentMethodId ?? null;
  if (cardId === null && intent.contextName !== null && customerId !== null) {
    cardId = (await defaultCardOf(trx, locationId, customerId, intent.contextName)) ?? null;
  }
  if (cardId === null) {
    throw new DomainError('VALIDATION_FAILED', {
      fieldName: 'paymentMethodId',
      message: 'Required: no card is attached to this payment intent, it names no mandate, and its customer has no default card for its contextName.',
    });
  }
  const offSessionMandate = intent.offSession ? mandate : undefined;
  if (offSessionMandate !== undefined && cardId !== offSessionMandate.paymentMethodId) {
    throw new DomainError('VALIDATION_FAILED', { fieldName: 'paymentMethodId', message: "An off-session charge is made on its mandate's card only." });
  }
  const saved = customerId === null ? undefined : await lockCardForPayment(trx, locationId, customerId, cardId);
  if (saved !== undefined) return { id: saved.id, brand: saved.cardBrand, lastFour: saved.lastFour, expMonth: saved.expMonth, expYear: saved.expYear };
  if (offSessionMandate?.card != null) return { id: cardId, ...offSessionMandate.card };
  throw notTheCustomersCard();
}
