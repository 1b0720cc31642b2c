import type { Knex } from 'knex';
import { deleteDefaultsOfCustomer, findDefaultPaymentMethod, type DefaultPaymentMethodRecord } from './default-payment-methods.repository';
import { deleteCardsOfCustomer, listCustomerPaymentMethods, lockPaymentMethod, type PaymentMethodRecord } from './payment-methods.repository';

/**
 * What the payment-methods feature does for the features and flows above it,
 * by name: its storage stays inside (index.ts offers these, never a
 * repository function). Each takes the caller's transaction, as the caller
 * owns it.
 */

/** The customer's saved card, locked until the caller's transaction ends (a payment or an attach uses it); undefined when not theirs. */
export function lockCardForPayment(trx: Knex.Transaction, locationId: string, customerId: string, cardId: string): Promise<PaymentMethodRecord | undefined> {
  return lockPaymentMethod(trx, locationId, customerId, cardId);
}

/** The id of the customer's default card for a context, if it has one. */
export async function defaultCardOf(db: Knex, locationId: string, customerId: string, contextName: string): Promise<string | undefined> {
  return (await findDefaultPaymentMethod(db, locationId, customerId, contextName))?.binding?.paymentMethodId;
}

/**
 * An erasure's part here: every default and card of the customer removed,
 * cards locked first (docs/decisions.md, One lock order), answering what was
 * removed for the erasure's events.
 */
export async function eraseCardsOf(
  trx: Knex.Transaction,
  locationId: string,
  customerId: string,
): Promise<{ defaults: DefaultPaymentMethodRecord[]; cards: PaymentMethodRecord[] }> {
  const defaults = await deleteDefaultsOfCustomer(trx, locationId, customerId);
  const cards = await deleteCardsOfCustomer(trx, locationId, customerId);
  return { defaults, cards };
}

/**
 * Whether a save of a card with `fingerprint` would pass the card cap now:
 * the customer holds fewer than `maxCards`, or already holds this card
 * (a save then updates it). Undefined for a customer the location lacks.
 * A look before asking the processor; the save itself counts again under its lock.
 */
export async function roomForCard(
  db: Knex,
  locationId: string,
  customerId: string,
  fingerprint: string | null,
  maxCards: number,
): Promise<boolean | undefined> {
  const cards = await listCustomerPaymentMethods(db, locationId, customerId);
  if (cards === undefined) return undefined;
  return cards.length < maxCards || (fingerprint !== null && cards.some((card) => card.fingerprint === fingerprint));
}
