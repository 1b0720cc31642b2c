import type { Knex } from 'knex';
import { erasePersonalDataFromEvents } from '../../change-log/event-erasure';
import { recordEvents, type EventToRecord } from '../../change-log/record-events';
import type { WriteContext } from '../../change-log/write-context';
import { eraseCustomerLeavingItsId, lockCustomerForErasure } from '../../customers';
import { scrubDisputesOfCustomer } from '../../disputes';
import { revokeAndScrubMandatesOf } from '../../mandates';
import { forgetAnswersNaming } from '../../idempotency/idempotency-keys.repository';
import { eraseIntentsOfCustomer, toPaymentIntentEventObject } from '../../payment-intents';
import { eraseCardsOf, toPaymentMethodData } from '../../payment-methods';
import { eraseSetupIntentsOf, toSetupIntentEventObject } from '../../setup-intents';
import { clockNow } from '../../platform/clock/location-clock';
import { inTransaction } from '../../platform/db/in-transaction';
import { DomainError } from '../../platform/errors/domain-error';

/**
 * The customer erasure flow (GDPR Article 17): it reaches every feature that
 * holds something of the customer, so it lives above them. In one transaction: its defaults and
 * cards removed, its intents cut from it and stripped of their e-mail (those
 * that can still move are canceled), its setup intents cut from it, stripped
 * of the consent's personal fields and the unfinished ones canceled, the intents that were theirs before
 * stripped of their e-mail too, the personal fields of its events and of
 * every event of those intents nulled, its mandates revoked (each with its
 * event) and their consents stripped of where they were given from, the stored Idempotency-Key answers that name it or its intents
 * forgotten, any record of a reference it shared, and then the customer
 * itself, leaving its id alone in `erased_customers` (so that a list walk
 * whose cursor it was goes on). Each removal records its event, and one
 * `customer.deleted` holds no personal data. UUIDv7 ids are never reused.
 */
export class CustomerErasureFlow {
  async erase(write: WriteContext, id: string): Promise<void> {
    const { locationId } = write;
    await inTransaction(write.db, async (trx: Knex.Transaction) => {
      if (!(await lockCustomerForErasure(trx, locationId, id))) throw new DomainError('CUSTOMER_NOT_FOUND');
      const { defaults, cards } = await eraseCardsOf(trx, locationId, id);
      const { intentIds, canceled } = await eraseIntentsOfCustomer(trx, locationId, id);
      const setups = await eraseSetupIntentsOf(trx, locationId, id);
      await revokeAndScrubMandatesOf({ ...write, db: trx }, id, clockNow());
      await scrubDisputesOfCustomer(trx, locationId, id);
      // After the revocations: their events are scrubbed with the rest.
      await erasePersonalDataFromEvents(trx, locationId, id, intentIds);
      await forgetAnswersNaming(trx, locationId, [id, ...intentIds]);
      await eraseCustomerLeavingItsId(trx, locationId, id);

      const changes: EventToRecord[] = [
        ...defaults.map((binding): EventToRecord => ({ type: 'default_payment_method.removed', customerId: id, object: binding, previous: null })),
        ...cards.map((card): EventToRecord => ({ type: 'payment_method.detached', customerId: id, object: toPaymentMethodData(card), previous: null })),
        ...canceled.map(({ intent, previousStatus }): EventToRecord => ({
          type: 'payment_intent.canceled',
          customerId: id,
          object: toPaymentIntentEventObject(intent),
          previous: { status: previousStatus },
        })),
        ...setups
          .filter(({ intent, previousStatus }) => intent.status !== previousStatus)
          .map(({ intent, previousStatus }): EventToRecord => ({
            type: 'setup_intent.canceled',
            customerId: id,
            object: toSetupIntentEventObject(intent),
            previous: { status: previousStatus },
          })),
        { type: 'customer.deleted', customerId: id, object: { id, externalReferenceId: null, description: null }, previous: null },
      ];
      await recordEvents(trx, write, changes);
    });
  }
}
