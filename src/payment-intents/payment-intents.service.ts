import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { SessionGrant } from '../auth/session-grant';
import { recordChanges } from '../events/event-log';
import { inTransaction } from '../platform/db/in-transaction';
import { DomainError } from '../platform/errors/domain-error';
import type { WriteContext } from '../platform/http/request-context';
import { FINAL_STATUSES, statusesLeadingTo } from './payment-intent-status';
import {
  findPaymentIntent,
  insertPaymentIntent,
  lockPaymentIntent,
  updatePaymentIntentStatus,
  type PaymentIntentRecord,
} from './payment-intents.repository';
import { toPaymentIntentEventObject, type CreatePaymentIntentInput } from './payment-intents.schemas';

import { intentIdOfSessionSecret, newSessionSecret, sameSessionSecret } from './session-secret';

export interface PaymentIntentSettings {
  /** ISO 4217 codes intents may use (PAYMENT_CURRENCIES). */
  currencies: readonly string[];
  sessionSecretTtlMs: number;
}

/**
 * Payment intents. Each method acts on the `db` it is given: the pool, or the
 * transaction of the request's Idempotency-Key. A write records its event in
 * the transaction that makes it.
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
      standingInstructionType: input.standingInstructionType ?? null,
      offSession: input.offSession,
      mandateId: input.mandateId ?? null,
      sessionSecret: newSessionSecret(id),
      });
      if (created === undefined) throw new DomainError('CUSTOMER_NOT_FOUND', { fieldName: 'customerId' });
      await recordChanges(trx, write, [
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

  /** CANCELED from any status that allows it; a final status is a 409 naming it. */
  async cancel(write: WriteContext, id: string): Promise<PaymentIntentRecord> {
    const { locationId } = write;
    return inTransaction(write.db, async (trx) => {
      // Locked first, so the event's previous status is the one this cancel moved it from.
      const current = await lockPaymentIntent(trx, locationId, id);
      if (current === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
      const canceled = await updatePaymentIntentStatus(trx, locationId, id, statusesLeadingTo('CANCELED'), 'CANCELED');
      if (canceled === undefined) {
        throw new DomainError('PAYMENT_INTENT_STATUS_CONFLICT', { message: `The payment intent is ${current.status} and cannot be canceled.` });
      }
      await recordChanges(trx, write, [
        { type: 'payment_intent.canceled', customerId: canceled.customerId, object: toPaymentIntentEventObject(canceled), previous: { status: current.status } },
      ]);
      return canceled;
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
    if (Date.now() - intent.createdAt.getTime() > this.settings.sessionSecretTtlMs) return undefined;
    return { intentId: intent.id, customerId: intent.customerId };
  }
}
