import type { Knex } from 'knex';
import { erasePersonalDataFromEvents } from '../events/event-erasure';
import { recordChanges, type Change } from '../events/event-log';
import { forgetAnswersNaming } from '../idempotency/idempotency-keys.repository';
import { eraseIntentsOfCustomer } from '../payment-intents/payment-intents.repository';
import { toPaymentIntentEventObject } from '../payment-intents/payment-intents.schemas';
import { deleteDefaultsOfCustomer } from '../payment-methods/default-payment-methods.repository';
import { deleteCardsOfCustomer } from '../payment-methods/payment-methods.repository';
import { toPaymentMethodData } from '../payment-methods/payment-methods.schemas';
import { inTransaction } from '../platform/db/in-transaction';
import { DomainError } from '../platform/errors/domain-error';
import type { WriteContext } from '../platform/http/request-context';
import { deleteCustomerLeavingItsId, lockCustomer } from './customers.repository';

/**
 * Erases a customer (GDPR Article 17), in one transaction: its defaults and
 * cards removed, its intents cut from it and stripped of their e-mail (those
 * that can still move are canceled), the intents that were theirs before
 * stripped of their e-mail too, the personal fields of its events and of
 * every event of those intents nulled, the stored Idempotency-Key answers that name it or its intents
 * forgotten, any record of a reference it shared, and then the customer
 * itself, leaving its id alone in `erased_customers` (so that a list walk
 * whose cursor it was goes on). Each removal records its event, and one
 * `customer.deleted` holds no personal data. UUIDv7 ids are never reused.
 */
export async function eraseCustomer(write: WriteContext, id: string): Promise<void> {
  const { locationId } = write;
  await inTransaction(write.db, async (trx: Knex.Transaction) => {
    if ((await lockCustomer(trx, locationId, id)) === undefined) throw new DomainError('CUSTOMER_NOT_FOUND');
    const defaults = await deleteDefaultsOfCustomer(trx, locationId, id);
    const cards = await deleteCardsOfCustomer(trx, locationId, id);
    const { intentIds, canceled } = await eraseIntentsOfCustomer(trx, locationId, id);
    await erasePersonalDataFromEvents(trx, locationId, id, intentIds);
    await forgetAnswersNaming(trx, locationId, [id, ...intentIds]);
    await deleteCustomerLeavingItsId(trx, locationId, id);

    const changes: Change[] = [
      ...defaults.map((binding): Change => ({ type: 'default_payment_method.removed', customerId: id, object: binding, previous: null })),
      ...cards.map((card): Change => ({ type: 'payment_method.detached', customerId: id, object: toPaymentMethodData(card), previous: null })),
      ...canceled.map(({ intent, previousStatus }): Change => ({
        type: 'payment_intent.canceled',
        customerId: id,
        object: toPaymentIntentEventObject(intent),
        previous: { status: previousStatus },
      })),
      { type: 'customer.deleted', customerId: id, object: { id, externalReferenceId: null, description: null }, previous: null },
    ];
    await recordChanges(trx, write, changes);
  });
}
