import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { recordEvents, type EventToRecord } from '../change-log/record-events';
import type { WriteContext } from '../change-log/write-context';
import { DomainError } from '../platform/errors/domain-error';
import { lockCustomerForCards, upsertPaymentMethod, type PaymentMethodRecord, type SavedPaymentMethod } from './payment-methods.repository';
import { toPaymentMethodData, type CreatePaymentMethodInput } from './payment-methods.schemas';

/** The answered fields of a card that an update changed, as they were (the spec's flat fields and `card`); undefined when none did. */
export function answeredChanges(was: PaymentMethodRecord, is: PaymentMethodRecord): object | undefined {
  const expiryChanged = was.expMonth !== is.expMonth || was.expYear !== is.expYear;
  const lastFourChanged = was.lastFour !== is.lastFour;
  if (!expiryChanged && !lastFourChanged) return undefined;
  const expiry = { month: was.expMonth, year: was.expYear };
  return {
    ...(lastFourChanged ? { lastFour: was.lastFour } : {}),
    ...(expiryChanged ? expiry : {}),
    card: { ...(lastFourChanged ? { lastFour: was.lastFour } : {}), ...(expiryChanged ? { expiry } : {}) },
  };
}

/** A new card is attached; a known fingerprint with another expiry is an update; the same card again changes nothing. */
function changesOfSave({ paymentMethod, created, previousExpiry }: SavedPaymentMethod): EventToRecord[] {
  const object = toPaymentMethodData(paymentMethod);
  if (created) return [{ type: 'payment_method.attached', customerId: paymentMethod.customerId, object, previous: null }];
  const previous = previousExpiry === null ? undefined : answeredChanges({ ...paymentMethod, ...previousExpiry }, paymentMethod);
  return previous === undefined ? [] : [{ type: 'payment_method.updated', customerId: paymentMethod.customerId, object, previous }];
}

/** 409 CARD_LIMIT_REACHED, naming the cap. */
export function cardLimitReached(maxCards: number): DomainError {
  return new DomainError('CARD_LIMIT_REACHED', {
    message: `The customer already holds ${maxCards} saved cards, the most allowed. Remove one before saving another.`,
  });
}

/**
 * Saves the vault's card metadata to the customer, with its event, in the
 * caller's transaction (a card's save, or a setup intent's confirm, which
 * makes its mandate in the same one). A fingerprint the customer already
 * has updates that card instead. A customer holds at most `maxCards` cards:
 * the count is read under a lock on the customer, so concurrent saves
 * cannot pass it together (404 for no such customer, 409 at the cap).
 */
export async function saveCard(
  write: WriteContext & { db: Knex.Transaction },
  customerId: string,
  input: CreatePaymentMethodInput,
  maxCards: number,
): Promise<SavedPaymentMethod> {
  const { locationId, db: trx } = write;
  if (!(await lockCustomerForCards(trx, locationId, customerId))) throw new DomainError('CUSTOMER_NOT_FOUND');
  const saved = await upsertPaymentMethod(
    trx,
    {
      locationId,
      customerId,
      id: uuidv7(),
      type: input.type,
      cardBrand: input.card.type.toUpperCase(),
      lastFour: input.card.lastFour,
      expMonth: input.card.expiry.month,
      expYear: input.card.expiry.year,
      fingerprint: input.fingerprint ?? null,
    },
    maxCards,
  );
  if (saved === undefined) throw cardLimitReached(maxCards);
  await recordEvents(trx, write, changesOfSave(saved));
  return saved;
}
