import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { customerExists } from '../customers/customers.repository';
import { DomainError } from '../platform/errors/domain-error';
import {
  deleteDefaultPaymentMethod,
  findDefaultPaymentMethod,
  upsertDefaultPaymentMethod,
  type DefaultPaymentMethodRecord,
} from './default-payment-methods.repository';
import {
  deletePaymentMethod,
  findPaymentMethodOwner,
  listCustomerPaymentMethods,
  lockCustomerForCards,
  upsertPaymentMethod,
  type PaymentMethodRecord,
} from './payment-methods.repository';
import type { CreatePaymentMethodInput, SetDefaultPaymentMethodInput } from './payment-methods.schemas';

/**
 * Saved cards and per-context defaults. Each write but a card save is one SQL
 * statement, so it is atomic without an explicit transaction; a save also
 * locks its customer to count the cards. The happy path of a read is one round
 * trip, and only a miss pays for the queries that say which 404 it was. Each method acts
 * on the `db` it is given: the pool, or the transaction of the request's
 * Idempotency-Key.
 */
export class PaymentMethodsService {
  constructor(private readonly settings: { maxCardsPerCustomer: number }) {}

  /**
   * Saves the vault's card metadata; a fingerprint the customer already has
   * updates that card instead. A customer holds at most `maxCardsPerCustomer`
   * cards: the count is read under a lock on the customer, so concurrent saves
   * cannot pass it together.
   */
  async save(
    db: Knex,
    locationId: string,
    customerId: string,
    input: CreatePaymentMethodInput,
  ): Promise<{ paymentMethod: PaymentMethodRecord; created: boolean }> {
    return db.transaction(async (trx) => {
      if (!(await lockCustomerForCards(trx, locationId, customerId))) throw new DomainError('CUSTOMER_NOT_FOUND');
      const card = {
        locationId,
        customerId,
        id: uuidv7(),
        type: input.type,
        cardBrand: input.card.type.toUpperCase(),
        lastFour: input.card.lastFour,
        expMonth: input.card.expiry.month,
        expYear: input.card.expiry.year,
        fingerprint: input.fingerprint ?? null,
      };
      const saved = await upsertPaymentMethod(trx, card, this.settings.maxCardsPerCustomer);
      if (saved === undefined) {
        throw new DomainError('CARD_LIMIT_REACHED', {
          message: `The customer already holds ${this.settings.maxCardsPerCustomer} saved cards, the most allowed. Remove one before saving another.`,
        });
      }
      return saved;
    });
  }

  async list(db: Knex, locationId: string, customerId: string): Promise<PaymentMethodRecord[]> {
    const cards = await listCustomerPaymentMethods(db, locationId, customerId);
    if (cards === undefined) throw new DomainError('CUSTOMER_NOT_FOUND');
    return cards;
  }

  /** Removes a card and, through the foreign key, every default that pointed at it. */
  async remove(db: Knex, locationId: string, customerId: string, paymentMethodId: string): Promise<void> {
    if (!(await deletePaymentMethod(db, locationId, customerId, paymentMethodId))) {
      throw await this.whyCardIsMissing(db, locationId, customerId, paymentMethodId);
    }
  }

  /** Sets (or replaces) the customer's default card for a context name. */
  async setDefault(
    db: Knex,
    locationId: string,
    customerId: string,
    input: SetDefaultPaymentMethodInput,
  ): Promise<DefaultPaymentMethodRecord> {
    const binding = await upsertDefaultPaymentMethod(db, { locationId, customerId, ...input });
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
  async removeDefault(db: Knex, locationId: string, customerId: string, contextName: string): Promise<DefaultPaymentMethodRecord> {
    const removed = await deleteDefaultPaymentMethod(db, locationId, customerId, contextName);
    if (removed !== undefined) return removed;
    throw new DomainError(
      (await customerExists(db, locationId, customerId)) ? 'DEFAULT_PAYMENT_METHOD_NOT_SET' : 'CUSTOMER_NOT_FOUND',
    );
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
