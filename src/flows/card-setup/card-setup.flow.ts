import type { Knex } from 'knex';
import { serviceWrite, type WriteContext } from '../../change-log/write-context';
import { makeMandate } from '../../mandates';
import { cardLimitReached, roomForCard, saveCard, type CreatePaymentMethodInput } from '../../payment-methods';
import type { PaymentError, PaymentProcessor, VerifyOutcome } from '../../payment-processor/payment-processor';
import { clockNow } from '../../platform/clock/location-clock';
import { inTransaction } from '../../platform/db/in-transaction';
import { DomainError } from '../../platform/errors/domain-error';
import type { Logger } from '../../platform/logger';
import {
  findSetupIntent,
  lockSetupIntent,
  moveSetupIntent,
  refuseSetupUnless,
  setupIntentNotFound,
  setupsLeftProcessing,
  type SetupCard,
  type SetupIntentRecord,
} from '../../setup-intents';

/** The sweep's batch: what one run takes on; the next run takes the rest. */
const SWEEP_BATCH = 100;

/** Why a verified card was not saved: the customer reached the card cap between the confirm's look and the save. */
const CARD_LIMIT_ERROR: PaymentError = {
  code: 'card_limit_reached',
  declineCode: null,
  message: 'The customer reached the most saved cards allowed while the card was verified; nothing was saved.',
};

/** The processor's key of one confirm attempt's verification. */
function verifyKey(intent: SetupIntentRecord): string {
  return `${intent.id}:${intent.attempts}:verify`;
}

/** The card a confirm brought, as a card's save takes it. */
function toSaveInput(card: SetupCard): CreatePaymentMethodInput {
  return {
    type: 'CARD',
    card: { type: card.brand, lastFour: card.lastFour, expiry: card.expiry },
    ...(card.fingerprint === null ? {} : { fingerprint: card.fingerprint }),
  };
}

/** Another confirm or the recovery finished this attempt first (or the erasure canceled it): the intent as that left it. */
class Superseded extends Error {
  constructor(readonly intent: SetupIntentRecord | undefined) {
    super('the setup intent moved on');
  }
}

/**
 * The card setup flow: a setup intent's confirm, which reaches three
 * features (the setup intent, the customer's cards, mandates) and the
 * processor, and the recovery of confirms a dead process left PROCESSING.
 *
 * The move to PROCESSING commits before the processor is asked for the $0
 * verification (no transaction is held across the call). An approved card
 * is then saved, its mandate made (OFF_SESSION) and the intent SUCCEEDED in
 * one transaction, which first locks the customer (as a card's save and the
 * erasure do) and then the intent, and acts only if the intent is still at
 * the attempt it was read at: of racing confirms one reaches PROCESSING
 * (the others get 409), and of a confirm and the recovery finishing one
 * attempt, one saves; the other's work rolls back.
 */
export class CardSetupFlow {
  constructor(
    private readonly processor: PaymentProcessor,
    private readonly logger: Logger,
    private readonly settings: { maxCardsPerCustomer: number },
  ) {}

  async confirm(write: WriteContext, id: string, input: CreatePaymentMethodInput): Promise<SetupIntentRecord> {
    const card: SetupCard = {
      brand: input.card.type.toUpperCase(),
      lastFour: input.card.lastFour,
      expiry: { month: input.card.expiry.month, year: input.card.expiry.year },
      fingerprint: input.fingerprint ?? null,
    };
    const processing = await inTransaction(write.db, async (trx) => {
      const intent = await lockSetupIntent(trx, write.locationId, id);
      if (intent === undefined) throw setupIntentNotFound();
      refuseSetupUnless('confirm', intent.status);
      // A customer at the cap gets what a save gets, before the processor is asked for nothing.
      const room = await roomForCard(trx, write.locationId, intent.customerId as string, card.fingerprint, this.settings.maxCardsPerCustomer);
      if (room === false) throw cardLimitReached(this.settings.maxCardsPerCustomer);
      return moveSetupIntent({ ...write, db: trx }, intent, {
        by: 'confirm',
        changes: { status: 'PROCESSING', attempts: intent.attempts + 1, card, lastSetupError: null },
      });
    });
    const settled = await this.settle(write, processing);
    if (settled.attempts === processing.attempts && settled.lastSetupError?.code === CARD_LIMIT_ERROR.code)
      throw cardLimitReached(this.settings.maxCardsPerCustomer);
    return settled;
  }

  /** Setup intents left PROCESSING longer than `olderThanSeconds`: the processor is asked again with the same key, and its answer recorded. */
  async recoverProcessing(db: Knex, olderThanSeconds: number, locationId?: string): Promise<number> {
    let settled = 0;
    for (const intent of await setupsLeftProcessing(db, olderThanSeconds, SWEEP_BATCH, locationId)) {
      const after = await this.settle(serviceWrite(db, intent.locationId), intent);
      if (after.status !== 'PROCESSING') settled += 1;
    }
    return settled;
  }

  /** Asks the processor to verify a PROCESSING attempt's card and records the answer; the intent unchanged if none came. */
  private async settle(write: WriteContext, intent: SetupIntentRecord): Promise<SetupIntentRecord> {
    const card = intent.card as SetupCard;
    let outcome: VerifyOutcome;
    try {
      outcome = await this.processor.verify({
        locationId: write.locationId,
        idempotencyKey: verifyKey(intent),
        card: { brand: card.brand, lastFour: card.lastFour, expiry: card.expiry },
        forLaterMerchantCharges: intent.usage === 'OFF_SESSION',
      });
    } catch (error) {
      this.logger.warn(
        { err: error, setupIntentId: intent.id, processor: this.processor.name },
        'the processor did not answer; the setup intent stays PROCESSING until it does',
      );
      return intent;
    }
    if (outcome.status !== 'approved') return this.fail(write, intent, outcome.error);
    try {
      return await this.saveVerified(write, intent, card, outcome.reference);
    } catch (error) {
      // Read after the rollback, on the pool: the transaction's connection is the only one PGlite has.
      if (error instanceof Superseded) return error.intent ?? (await findSetupIntent(write.db, write.locationId, intent.id)) ?? intent;
      if (error instanceof DomainError && error.errorCode === 'CARD_LIMIT_REACHED') return this.fail(write, intent, CARD_LIMIT_ERROR);
      throw error;
    }
  }

  /** The card saved (or the customer's card with its fingerprint reused), the mandate made, the intent SUCCEEDED: one transaction. */
  private saveVerified(write: WriteContext, intent: SetupIntentRecord, card: SetupCard, reference: string): Promise<SetupIntentRecord> {
    return inTransaction(write.db, async (trx) => {
      const inTrx = { ...write, db: trx };
      let saved;
      try {
        // The customer first (its lock), then the intent: the order of a card's save and of the erasure.
        saved = await saveCard(inTrx, intent.customerId as string, toSaveInput(card), this.settings.maxCardsPerCustomer);
      } catch (error) {
        // Erased meanwhile: the erasure canceled the intent (read once this transaction has rolled back).
        if (error instanceof DomainError && error.errorCode === 'CUSTOMER_NOT_FOUND') throw new Superseded(undefined);
        throw error;
      }
      const current = await lockSetupIntent(trx, write.locationId, intent.id);
      if (current?.status !== 'PROCESSING' || current.attempts !== intent.attempts) throw new Superseded(current);
      const paymentMethodId = saved.paymentMethod.id;
      let mandateId: string | null = null;
      if (current.mandateTerms !== null) {
        const mandate = await makeMandate(inTrx, { customerId: saved.paymentMethod.customerId, paymentMethodId, ...current.mandateTerms }, clockNow());
        if (mandate === undefined) throw new Error('the card saved in this transaction was not found for its mandate');
        mandateId = mandate.id;
      }
      return moveSetupIntent(inTrx, current, {
        by: 'processor',
        changes: { status: 'SUCCEEDED', processorReference: reference, paymentMethodId, mandateId },
        event: 'setup_intent.succeeded',
      });
    });
  }

  /** Back to REQUIRES_PAYMENT_METHOD with `lastSetupError`, nothing saved; the intent as it stands if another finished the attempt first. */
  private fail(write: WriteContext, intent: SetupIntentRecord, error: PaymentError): Promise<SetupIntentRecord> {
    return inTransaction(write.db, async (trx) => {
      const current = await lockSetupIntent(trx, write.locationId, intent.id);
      if (current?.status !== 'PROCESSING' || current.attempts !== intent.attempts) return current ?? intent;
      return moveSetupIntent({ ...write, db: trx }, current, {
        by: 'processor',
        changes: { status: 'REQUIRES_PAYMENT_METHOD', lastSetupError: error },
        event: 'setup_intent.setup_failed',
      });
    });
  }
}
