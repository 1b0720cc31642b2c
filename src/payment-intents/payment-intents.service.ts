import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { inCurrentTransaction } from '../platform/db/request-transaction';
import { DomainError } from '../platform/errors/domain-error';
import { FINAL_STATUSES, statusesLeadingTo } from './payment-intent-status';
import {
  findPaymentIntent,
  insertPaymentIntent,
  updatePaymentIntentStatus,
  type PaymentIntentRecord,
} from './payment-intents.repository';
import type { CreatePaymentIntentInput } from './payment-intents.schemas';
import { intentIdOfSessionSecret, newSessionSecret, sameSessionSecret } from './session-secret';

export class PaymentIntentsService {
  constructor(
    private readonly knex: Knex,
    private readonly sessionSecretTtlMs: number,
  ) {}

  /** Inside an idempotent create, its transaction (see request-transaction.ts). */
  private get db(): Knex {
    return inCurrentTransaction(this.knex);
  }

  async create(locationId: string, input: CreatePaymentIntentInput): Promise<PaymentIntentRecord> {
    const id = uuidv7();
    const created = await insertPaymentIntent(this.db, {
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
    return created;
  }

  async get(locationId: string, id: string): Promise<PaymentIntentRecord> {
    const intent = await findPaymentIntent(this.db, locationId, id);
    if (intent === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
    return intent;
  }

  /** CANCELED from any status that allows it; a final status is a 409 naming it. */
  async cancel(locationId: string, id: string): Promise<PaymentIntentRecord> {
    const canceled = await updatePaymentIntentStatus(this.db, locationId, id, statusesLeadingTo('CANCELED'), 'CANCELED');
    if (canceled !== undefined) return canceled;
    const current = await this.get(locationId, id);
    throw new DomainError('PAYMENT_INTENT_STATUS_CONFLICT', {
      message: `The payment intent is ${current.status} and cannot be canceled.`,
    });
  }

  /**
   * The intent a session secret belongs to, if the secret is live: well formed,
   * equal in whole to the intent's (compared in constant time), the intent not
   * final, and younger than the configured lifetime.
   */
  async liveIntentOfSessionSecret(locationId: string, secret: string): Promise<PaymentIntentRecord | undefined> {
    const intentId = intentIdOfSessionSecret(secret);
    if (intentId === undefined) return undefined;
    const intent = await findPaymentIntent(this.db, locationId, intentId);
    if (intent === undefined || !sameSessionSecret(secret, intent.sessionSecret)) return undefined;
    if (FINAL_STATUSES.includes(intent.status)) return undefined;
    if (Date.now() - intent.createdAt.getTime() > this.sessionSecretTtlMs) return undefined;
    return intent;
  }
}
