import type { Knex } from 'knex';
import { customerExists } from '../customers';
import { recordEvents, type EventToRecord } from '../change-log/record-events';
import type { WriteContext } from '../change-log/write-context';
import { inTransaction, isInTransaction } from '../platform/db/in-transaction';
import { answeredChanges, saveCard } from './card-save';
import { DomainError } from '../platform/errors/domain-error';
import {
  deleteDefaultPaymentMethod,
  deleteDefaultsOfCard,
  findDefaultPaymentMethod,
  upsertDefaultPaymentMethod,
  type DefaultPaymentMethodRecord,
} from './default-payment-methods.repository';
import {
  cardWithFingerprint,
  deletePaymentMethod,
  findPaymentMethod,
  findPaymentMethodOwner,
  listCustomerPaymentMethods,
  lockPaymentMethod,
  renewPaymentMethod,
  updatePaymentMethod,
  type PaymentMethodRecord,
  type SavedPaymentMethod,
} from './payment-methods.repository';
import {
  toPaymentMethodData,
  type CreatePaymentMethodInput,
  type SetDefaultPaymentMethodInput,
  type UpdatePaymentMethodInput,
} from './payment-methods.schemas';

/**
 * What an update makes of the card as read, decided once for both ways it is
 * written: the card after it, and whether it is a plain renewal (the
 * fingerprint as it is), which needs no look at the customer's other cards
 * and so no transaction. A card of another brand is another card: refused.
 */
function updatedCard(current: PaymentMethodRecord, input: UpdatePaymentMethodInput): { next: PaymentMethodRecord; plainRenewal: boolean } {
  const brand = input.card?.type?.toUpperCase();
  if (brand !== undefined && brand !== current.cardBrand) {
    throw new DomainError('VALIDATION_FAILED', {
      fieldName: 'card.type',
      message: `Must be the card's own brand (${current.cardBrand}): a card of another brand is another card; save it.`,
    });
  }
  const next: PaymentMethodRecord = {
    ...current,
    lastFour: input.card?.lastFour ?? current.lastFour,
    expMonth: input.card?.expiry?.month ?? current.expMonth,
    expYear: input.card?.expiry?.year ?? current.expYear,
    fingerprint: input.fingerprint ?? current.fingerprint,
  };
  return { next, plainRenewal: next.fingerprint === current.fingerprint };
}

/** The event of a default that a removal took away (the removal of its card, or of the default itself). */
const defaultRemoved = (customerId: string, binding: DefaultPaymentMethodRecord): EventToRecord => ({
  type: 'default_payment_method.removed',
  customerId,
  object: binding,
  previous: null,
});

/**
 * Saved cards and per-context defaults. Each write runs in a transaction that
 * also records its events (the request's own when it has an Idempotency-Key);
 * a save also locks its customer to count the cards. The happy path of a read
 * is one round trip, and only a miss pays for the queries that say which 404
 * it was. Reads act on the `db` they are given: the pool, or the claim's transaction.
 */
export class PaymentMethodsService {
  constructor(private readonly settings: { maxCardsPerCustomer: number }) {}

  /**
   * Saves the vault's card metadata; a fingerprint the customer already has
   * updates that card instead, and a customer holds at most
   * `maxCardsPerCustomer` cards (saveCard).
   */
  async save(write: WriteContext, customerId: string, input: CreatePaymentMethodInput): Promise<SavedPaymentMethod> {
    return inTransaction(write.db, (trx) => saveCard({ ...write, db: trx }, customerId, input, this.settings.maxCardsPerCustomer));
  }

  /**
   * The customer's cards; with `expiringBefore` (YYYY-MM), only those whose
   * expiry month is before it. A customer holds at most 50 cards, so the
   * filter runs here, on the one prepared read.
   */
  async list(db: Knex, locationId: string, customerId: string, expiringBefore?: string): Promise<PaymentMethodRecord[]> {
    const cards = await listCustomerPaymentMethods(db, locationId, customerId);
    if (cards === undefined) throw new DomainError('CUSTOMER_NOT_FOUND');
    return expiringBefore === undefined ? cards : cards.filter((card) => `${card.expYear}-${card.expMonth}` < expiringBefore);
  }

  /**
   * The vault's update of a saved card (a renewal): new expiry, possibly new
   * last four and fingerprint, the same brand. The card keeps its id and every
   * default bound to it. A `payment_method.updated` event records the answered
   * fields as they were (a new fingerprint alone changes nothing answered, and
   * records nothing).
   */
  async update(write: WriteContext, customerId: string, paymentMethodId: string, input: UpdatePaymentMethodInput): Promise<PaymentMethodRecord> {
    const renewed = await this.renewWithoutTransaction(write, customerId, paymentMethodId, input);
    if (renewed !== undefined) return renewed;
    const { locationId } = write;
    return inTransaction(write.db, async (trx) => {
      const current = await lockPaymentMethod(trx, locationId, customerId, paymentMethodId);
      if (current === undefined) throw await this.whyCardIsMissing(trx, locationId, customerId, paymentMethodId);
      const { next, plainRenewal } = updatedCard(current, input);
      if (!plainRenewal && (await cardWithFingerprint(trx, locationId, customerId, next.fingerprint as string)) !== undefined) {
        throw new DomainError('FINGERPRINT_IN_USE', { fieldName: 'fingerprint' });
      }
      const updated = await updatePaymentMethod(trx, current, {
        lastFour: next.lastFour,
        expMonth: next.expMonth,
        expYear: next.expYear,
        fingerprint: next.fingerprint ?? undefined,
      });
      const previous = answeredChanges(current, updated);
      if (previous !== undefined) {
        await recordEvents(trx, write, [{ type: 'payment_method.updated', customerId, object: toPaymentMethodData(updated), previous }]);
      }
      return updated;
    });
  }

  /**
   * The common renewal (a new expiry or last four, the fingerprint and brand
   * absent or as they are) in two round trips and no transaction: the card read, then
   * changed with its event by one statement that holds only if the card is
   * still as read. It decides what the update makes of the card as the
   * transactional path does (updatedCard), so a brand change is refused here
   * too. Undefined whenever it does not apply (inside an Idempotency-Key's
   * transaction, another fingerprint, no such card, a change in between):
   * the transactional path then decides, 404s and 409s included.
   */
  private async renewWithoutTransaction(
    write: WriteContext,
    customerId: string,
    paymentMethodId: string,
    input: UpdatePaymentMethodInput,
  ): Promise<PaymentMethodRecord | undefined> {
    if (isInTransaction(write.db)) return undefined;
    const current = await findPaymentMethod(write.db, write.locationId, customerId, paymentMethodId);
    if (current === undefined) return undefined;
    const { next, plainRenewal } = updatedCard(current, input);
    if (!plainRenewal) return undefined;
    return renewPaymentMethod(write.db, current, next, { origin: write.origin, object: toPaymentMethodData(next), previous: answeredChanges(current, next) });
  }

  /** Removes a card and every default that pointed at it: one event for each default, then the card's. */
  async remove(write: WriteContext, customerId: string, paymentMethodId: string): Promise<void> {
    const { locationId } = write;
    await inTransaction(write.db, async (trx) => {
      // The card first, then its bindings, as a set-default takes them (docs/decisions.md, One lock order): the
      // bindings a set-default pointed at the card meanwhile are then waited for here, never in the delete's cascade.
      if ((await lockPaymentMethod(trx, locationId, customerId, paymentMethodId)) === undefined) {
        throw await this.whyCardIsMissing(trx, locationId, customerId, paymentMethodId);
      }
      const defaults = await deleteDefaultsOfCard(trx, locationId, customerId, paymentMethodId);
      const removed = await deletePaymentMethod(trx, locationId, customerId, paymentMethodId);
      if (removed === undefined) throw await this.whyCardIsMissing(trx, locationId, customerId, paymentMethodId);
      await recordEvents(trx, write, [
        ...defaults.map((binding) => defaultRemoved(customerId, binding)),
        { type: 'payment_method.detached', customerId, object: toPaymentMethodData(removed), previous: null },
      ]);
    });
  }

  /**
   * Sets (or replaces) the customer's default card for a context; setting the
   * card it already is changes nothing. The upsert writes its own event (one
   * statement, one round trip: the hottest write).
   */
  async setDefault(write: WriteContext, customerId: string, input: SetDefaultPaymentMethodInput): Promise<DefaultPaymentMethodRecord> {
    const { db, locationId } = write;
    const binding = await upsertDefaultPaymentMethod(db, { locationId, customerId, ...input }, write.origin);
    if (binding === undefined) throw await this.whyCardIsMissing(db, locationId, customerId, input.paymentMethodId);
    return binding;
  }

  async getDefault(db: Knex, locationId: string, customerId: string, contextName: string): Promise<DefaultPaymentMethodRecord> {
    const found = await findDefaultPaymentMethod(db, locationId, customerId, contextName);
    if (found === undefined) throw new DomainError('CUSTOMER_NOT_FOUND');
    if (found.binding === null) throw new DomainError('DEFAULT_PAYMENT_METHOD_NOT_SET');
    return found.binding;
  }

  /** Removes the default for a context and answers with the binding it removed. */
  async removeDefault(write: WriteContext, customerId: string, contextName: string): Promise<DefaultPaymentMethodRecord> {
    const { locationId } = write;
    return inTransaction(write.db, async (trx) => {
      const removed = await deleteDefaultPaymentMethod(trx, locationId, customerId, contextName);
      if (removed === undefined) {
        throw new DomainError((await customerExists(trx, locationId, customerId)) ? 'DEFAULT_PAYMENT_METHOD_NOT_SET' : 'CUSTOMER_NOT_FOUND');
      }
      await recordEvents(trx, write, [defaultRemoved(customerId, removed)]);
      return removed;
    });
  }

  /**
   * Which 404 a missed card write was. "Not this customer's" is told apart from
   * "no such card" only within the location, whose records the caller may act on
   * anyway; a card of another location is simply not found.
   */
  private async whyCardIsMissing(db: Knex, locationId: string, customerId: string, paymentMethodId: string): Promise<DomainError> {
    if (!(await customerExists(db, locationId, customerId))) return new DomainError('CUSTOMER_NOT_FOUND');
    const owner = await findPaymentMethodOwner(db, locationId, paymentMethodId);
    return new DomainError(owner === undefined ? 'PAYMENT_METHOD_NOT_FOUND' : 'PAYMENT_METHOD_NOT_OWNED');
  }
}
