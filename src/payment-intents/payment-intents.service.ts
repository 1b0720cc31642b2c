import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { SessionGrant } from '../auth/session-grant';
import { recordEvents } from '../change-log/record-events';
import { serviceWrite, type WriteContext } from '../change-log/write-context';
import { customerExists } from '../customers';
import { lockCardForPayment } from '../payment-methods';
import { clockNow } from '../platform/clock/location-clock';
import { inTransaction } from '../platform/db/in-transaction';
import { DomainError } from '../platform/errors/domain-error';
import { mandateOfIntent } from './intent-mandate';
import { move, notTheCustomersCard, refuseUnless } from './payment-intent-moves';
import { FINAL_STATUSES } from './payment-intent-status';
import {
  dueExpiries,
  findPaymentIntent,
  insertPaymentIntent,
  listPaymentIntents,
  lockPaymentIntent,
  rememberFormerCustomer,
  type IntentChanges,
  type PaymentIntentQuery,
  type PaymentIntentRecord,
} from './payment-intents.repository';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import {
  PAYMENT_INTENT_CURSOR,
  TIP_EXCEEDS_AMOUNT,
  toPaymentIntentEventObject,
  type CreatePaymentIntentInput,
  type UpdatePaymentIntentInput,
} from './payment-intents.schemas';
import { intentIdOfSessionSecret, newSessionSecret, sameSessionSecret } from '../auth/session-secret';

export interface PaymentIntentSettings {
  /** ISO 4217 codes intents may use (PAYMENT_CURRENCIES). */
  currencies: readonly string[];
  sessionSecretTtlMs: number;
  /** INTENT_EXPIRY_HOURS: an intent still unpaid this long after its creation is canceled. */
  expiryHours: number;
}

/** The expiry sweep's batch: what one run takes on; the next run takes the rest. */
const EXPIRY_BATCH = 100;

/**
 * Payment intents, the record: create, read, list, and the update of an
 * unpaid intent, none of which asks the processor. The moves that do
 * (confirm, capture, cancel, the sweeps) are the checkout flow's
 * (src/flows/checkout). Each method acts on the `db` it is given: the pool,
 * or the transaction of the request's Idempotency-Key. A write records its
 * event with the change, in one statement or one transaction.
 */
export class PaymentIntentsService {
  constructor(private readonly settings: PaymentIntentSettings) {}

  async create(write: WriteContext, input: CreatePaymentIntentInput): Promise<PaymentIntentRecord> {
    const { locationId } = write;
    if (!this.settings.currencies.includes(input.currency)) {
      throw new DomainError('VALIDATION_FAILED', {
        problems: [{ fieldName: 'currency', message: `Must be one of ${this.settings.currencies.join(', ')}.` }],
      });
    }
    const id = uuidv7();
    const mandate = await mandateOfIntent(write.db, {
      locationId,
      customerId: input.customerId ?? null,
      mandateId: input.mandateId ?? null,
      offSession: input.offSession,
      amount: input.amount,
    });
    return inTransaction(write.db, async (trx) => {
      const created = await insertPaymentIntent(trx, {
        locationId,
        id,
        externalReferenceId: input.externalReferenceId,
        customerId: input.customerId ?? null,
        amount: input.amount,
        currency: input.currency,
        captureMethod: input.captureMethod,
        status: 'REQUIRES_PAYMENT_METHOD',
        email: input.email ?? null,
        tip: input.amountDetails?.tip ?? 0,
        paymentMethodConfigurationId: input.paymentMethodConfigurationId ?? null,
        standingInstructionType: input.standingInstructionType ?? mandate?.standingInstructionType ?? null,
        offSession: input.offSession,
        mandateId: input.mandateId ?? null,
        contextName: input.contextName ?? null,
        partialAuthorization: input.paymentMethodOptions?.card.partialAuthorization ?? false,
        sessionSecret: newSessionSecret(id),
      });
      if (created === undefined) throw new DomainError('CUSTOMER_NOT_FOUND', { fieldName: 'customerId' });
      await recordEvents(trx, write, [
        { type: 'payment_intent.created', customerId: created.customerId, object: toPaymentIntentEventObject(created), previous: null },
      ]);
      return created;
    });
  }

  async get(db: Knex, locationId: string, id: string): Promise<PaymentIntentRecord> {
    const intent = await findPaymentIntent(db, locationId, id);
    if (intent === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
    return intent;
  }

  async list(db: Knex, locationId: string, query: PaymentIntentQuery): Promise<{ intents: PaymentIntentRecord[]; hasMore: boolean }> {
    await refuseUnknownCursor(query.startingAfter, PAYMENT_INTENT_CURSOR, async (after) => (await findPaymentIntent(db, locationId, after)) !== undefined);
    return listPaymentIntents(db, locationId, query);
  }

  /**
   * Cancels the intents still unpaid INTENT_EXPIRY_HOURS after their creation
   * (`cancellationReason` EXPIRED, a `payment_intent.canceled` event), a batch
   * at a time; answers how many. Each move is guarded by the status it was
   * read in, so replicas sweeping at once, or a confirm racing the sweep,
   * move an intent once. Nothing is held at the processor for an unpaid intent.
   */
  async expireDue(db: Knex, locationId?: string): Promise<number> {
    let expired = 0;
    for (const intent of await dueExpiries(db, this.settings.expiryHours, EXPIRY_BATCH, locationId)) {
      const step = { by: 'expiry', changes: { status: 'CANCELED', cancellationReason: 'EXPIRED' }, event: 'payment_intent.canceled' } as const;
      if ((await move(serviceWrite(db, intent.locationId), intent, step)) !== undefined) expired += 1;
    }
    return expired;
  }

  /**
   * Changes the fields sent, while nothing is paid yet. The card attached
   * decides the status: one attached is REQUIRES_CONFIRMATION, none is
   * REQUIRES_PAYMENT_METHOD. A change to nothing records no event.
   */
  async update(write: WriteContext, id: string, input: UpdatePaymentIntentInput): Promise<PaymentIntentRecord> {
    const { locationId } = write;
    return inTransaction(write.db, async (trx) => {
      const intent = await lockPaymentIntent(trx, locationId, id);
      if (intent === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
      refuseUnless('update', intent.status);
      const wanted: IntentChanges = {
        amount: input.amount,
        tip: input.amountDetails?.tip,
        email: input.email,
        externalReferenceId: input.externalReferenceId,
        customerId: input.customerId,
        paymentMethodId: input.paymentMethodId,
        partialAuthorization: input.paymentMethodOptions?.card.partialAuthorization,
        contextName: input.contextName,
      };
      const customerId = input.customerId === undefined ? intent.customerId : input.customerId;
      if (input.customerId != null && input.customerId !== intent.customerId && !(await customerExists(trx, locationId, input.customerId))) {
        throw new DomainError('CUSTOMER_NOT_FOUND', { fieldName: 'customerId' });
      }
      // Another customer: the card attached was the last one's.
      if (customerId !== intent.customerId && input.paymentMethodId === undefined) wanted.paymentMethodId = null;
      if (
        input.paymentMethodId != null &&
        (customerId === null || (await lockCardForPayment(trx, locationId, customerId, input.paymentMethodId)) === undefined)
      ) {
        throw notTheCustomersCard();
      }
      const paymentMethodId = wanted.paymentMethodId === undefined ? intent.paymentMethodId : wanted.paymentMethodId;
      wanted.status = paymentMethodId === null ? 'REQUIRES_PAYMENT_METHOD' : 'REQUIRES_CONFIRMATION';
      if ((wanted.tip ?? intent.tip) > (wanted.amount ?? intent.amount)) {
        throw new DomainError('VALIDATION_FAILED', { problems: [{ fieldName: 'amountDetails.tip', message: TIP_EXCEEDS_AMOUNT }] });
      }
      // The intent as it would stand must still be chargeable under its mandate.
      await mandateOfIntent(trx, {
        locationId,
        customerId,
        mandateId: intent.mandateId,
        offSession: intent.offSession,
        amount: wanted.amount ?? intent.amount,
      });
      const changes = Object.fromEntries(
        Object.entries(wanted).filter(([field, value]) => value !== undefined && value !== intent[field as keyof IntentChanges]),
      ) as IntentChanges;
      if (Object.keys(changes).length === 0) return intent;
      if (changes.customerId !== undefined && intent.customerId !== null) await rememberFormerCustomer(trx, locationId, intent.customerId, intent.id);
      // Locked above: the guard holds.
      return (await move({ ...write, db: trx }, intent, { by: 'update', changes, event: 'payment_intent.updated' })) as PaymentIntentRecord;
    });
  }

  /**
   * What a session secret grants, if the secret is live: well formed, equal in
   * whole to its intent's (compared in constant time), the intent not final,
   * and younger than the configured lifetime.
   */
  async sessionGrant(db: Knex, locationId: string, secret: string): Promise<SessionGrant | undefined> {
    const intentId = intentIdOfSessionSecret(secret);
    if (intentId === undefined) return undefined;
    const intent = await findPaymentIntent(db, locationId, intentId);
    if (intent === undefined || !sameSessionSecret(secret, intent.sessionSecret)) return undefined;
    if (FINAL_STATUSES.includes(intent.status)) return undefined;
    if (clockNow().getTime() - intent.createdAt.getTime() > this.settings.sessionSecretTtlMs) return undefined;
    return { intentId: intent.id, setupIntentId: null, customerId: intent.customerId };
  }
}
