import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { serviceWrite, type WriteContext } from '../../change-log/write-context';
import {
  dueAuthorizations,
  findPaymentIntent,
  lockPaymentIntent,
  MAX_AMOUNT,
  mandateOfIntent,
  move,
  refuseUnless,
  statusConflict,
  stuckInProcessing,
  type CancellationReason,
  type IntentChanges,
  type IntentStep,
  type LatestPayment,
  type PaymentIntentRecord,
} from '../../payment-intents';
import type { AuthorizeOutcome, PaymentProcessor } from '../../payment-processor/payment-processor';
import { processorKeys } from '../../payment-processor/payment-processor';
import { clockNow } from '../../platform/clock/location-clock';
import { inTransaction } from '../../platform/db/in-transaction';
import { DomainError } from '../../platform/errors/domain-error';
import type { Logger } from '../../platform/logger';
import { cardToCharge } from './card-to-charge';

export interface CheckoutSettings {
  /** CAPTURE_WINDOW_SECONDS: an authorization not captured by then is voided. */
  captureWindowSeconds: number;
  /** OVERCAPTURE_MAX_PERCENT: how far above the authorized amount a capture with the tip added may go. */
  overcaptureMaxPercent: number;
}

/** What a capture is asked for: part of the authorized amount, or the amount with the tip the guest wrote on the slip. */
export interface CaptureInput {
  amountToCapture?: number | undefined;
  amountDetails?: { tip: number } | undefined;
}

/** What a confirm asks: the card to charge, if it names one, and whether the browser side asks (with the intent's session secret). */
export interface ConfirmRequest {
  paymentMethodId: string | undefined;
  bySessionSecret: boolean;
}

/** The sweeps' batch: what one run takes on; the next run takes the rest. */
const SWEEP_BATCH = 100;

/** SUCCEEDED with `amount` captured: the payment shows it, and refunds are taken from it from now on. */
function captured(payment: LatestPayment, amount: number): IntentChanges {
  return {
    status: 'SUCCEEDED',
    latestPayment: { ...payment, status: 'CAPTURED', amount },
    captureBefore: null,
    amountCaptured: amount,
    capturedAt: clockNow(),
  };
}

function processorUnavailable(): DomainError {
  return new DomainError('PAYMENT_PROCESSOR_UNAVAILABLE', { headers: { 'Retry-After': '5' } });
}

/**
 * The checkout flow: an intent's moves that involve the payment processor:
 * confirm, capture, cancel (voiding an authorization), and the two sweeps
 * that keep intents from waiting for ever: the capture window and the
 * recovery of PROCESSING. The intent's record, its fields, its reads and the
 * moves made without the processor (create, update) are the payment-intents
 * feature's (PaymentIntentsService); every move, here or there, is made by
 * its move(), which the status table checks.
 *
 * No database transaction is held while the processor is asked (PGlite has
 * one connection, and a slow processor must not hold the pool): the move
 * before the call commits first (confirm's PROCESSING), and the move after
 * it is guarded by the status and the confirm attempt, so whoever records
 * an answer first wins and the others find the intent already moved. The
 * processor's idempotency keys make asking twice safe.
 */
export class CheckoutFlow {
  constructor(
    private readonly processor: PaymentProcessor,
    private readonly logger: Logger,
    private readonly settings: CheckoutSettings,
  ) {}

  /**
   * PROCESSING, committed; then the processor's answer, recorded. Answers the
   * intent as it stands after that answer (still PROCESSING only if the
   * processor did not answer; the recovery sweep settles it later).
   */
  async confirm(write: WriteContext, id: string, request: ConfirmRequest): Promise<PaymentIntentRecord> {
    const processing = await inTransaction(write.db, async (trx) => {
      const intent = await lockPaymentIntent(trx, write.locationId, id);
      if (intent === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
      refuseUnless('confirm', intent.status);
      if (intent.offSession && request.bySessionSecret) {
        throw new DomainError('INSUFFICIENT_SCOPE', {
          message:
            'An off-session payment intent is a merchant-initiated charge: the server side confirms it (simplified-payments-integration.server:write), never the browser.',
        });
      }
      const mandate = await mandateOfIntent(trx, intent);
      const card = await cardToCharge(trx, intent, mandate, request.paymentMethodId);
      const payment: LatestPayment = {
        id: uuidv7(),
        status: 'PENDING',
        amount: intent.amount,
        createdAt: clockNow().toISOString(),
        card: { brand: card.brand, lastFour: card.lastFour, expiry: { month: card.expMonth, year: card.expYear } },
      };
      const changes: IntentChanges = {
        status: 'PROCESSING',
        paymentMethodId: card.id,
        paymentAttempts: intent.paymentAttempts + 1,
        latestPayment: payment,
        lastPaymentError: null,
      };
      // Locked above: the guard holds. The move and its event are one statement in this transaction.
      return (await move({ ...write, db: trx }, intent, { by: 'confirm', changes, event: 'payment_intent.processing' })) as PaymentIntentRecord;
    });
    return this.settle(write, processing);
  }

  /**
   * SUCCEEDED once the processor captures; a failed capture stays
   * REQUIRES_CAPTURE with `lastPaymentError`. With `amountDetails.tip`, the
   * tip replaces the intent's and the amount with it is captured, up to
   * OVERCAPTURE_MAX_PERCENT above what was authorized (a restaurant's tip
   * taken at capture, as card networks allow; not an incremental authorization).
   */
  async capture(write: WriteContext, id: string, input: CaptureInput): Promise<PaymentIntentRecord> {
    const intent = await this.find(write.db, write.locationId, id);
    refuseUnless('capture', intent.status);
    const payment = intent.latestPayment as LatestPayment;
    const { amount, withTip } = this.amountToCapture(intent, payment, input);
    const outcome = await this.ask(() =>
      this.processor.capture({
        locationId: write.locationId,
        idempotencyKey: processorKeys(intent.id, intent.paymentAttempts).capture,
        reference: intent.processorReference as string,
        amount,
      }),
    );
    // Voided first by a cancel (which records it) or the capture window: this capture lost.
    if (outcome.status === 'voided') throw statusConflict('capture', 'CANCELED');
    if (outcome.status === 'overcapture_declined') {
      throw new DomainError('OVERCAPTURE_DECLINED', {
        fieldName: 'amountDetails.tip',
        message: `The processor refused to capture ${amount}, above the authorized ${payment.amount}: capture at most that (without amountDetails), or take the tip another way.`,
      });
    }
    const step: IntentStep =
      outcome.status === 'captured'
        ? { by: 'capture', changes: { ...captured(payment, outcome.amount), ...withTip }, event: 'payment_intent.succeeded' }
        : { by: 'capture', changes: { lastPaymentError: outcome.error }, event: 'payment_intent.payment_failed' };
    const moved = await move(write, intent, step);
    return moved ?? this.refuseAsItNowStands(write.db, write.locationId, id, 'capture');
  }

  /** What a capture asks the processor for, and the intent's new amount and tip when the tip is added at capture. */
  private amountToCapture(
    intent: PaymentIntentRecord,
    payment: LatestPayment,
    input: CaptureInput,
  ): { amount: number; withTip: Pick<IntentChanges, 'amount' | 'tip' | 'amountRequested'> } {
    if (input.amountDetails === undefined) {
      const amount = input.amountToCapture ?? payment.amount;
      if (amount > payment.amount) {
        throw new DomainError('VALIDATION_FAILED', { fieldName: 'amountToCapture', message: `Must not exceed the authorized amount, ${payment.amount}.` });
      }
      return { amount, withTip: {} };
    }
    if (input.amountToCapture !== undefined) {
      throw new DomainError('VALIDATION_FAILED', {
        fieldName: 'amountToCapture',
        message: 'Send amountToCapture (part of the authorized amount) or amountDetails.tip (the tip added at capture), not both.',
      });
    }
    const { tip } = input.amountDetails;
    const withoutTip = intent.amount - intent.tip;
    const largest = Math.min(Math.floor((payment.amount * (100 + this.settings.overcaptureMaxPercent)) / 100), MAX_AMOUNT);
    if (withoutTip + tip > largest) {
      throw new DomainError('OVERCAPTURE_LIMIT_EXCEEDED', {
        fieldName: 'amountDetails.tip',
        message: `At most ${largest} may be captured (${this.settings.overcaptureMaxPercent} % above the authorized ${payment.amount}): the tip may be at most ${largest - withoutTip}.`,
      });
    }
    // On a partial authorization the tip is this card's, on top of its part of the bill: what was asked moves with it,
    // so the rest still to pay (amountRequested - amount) is what it was (docs/checkout.md, Partial authorization).
    const requested = intent.amountRequested === null ? {} : { amountRequested: intent.amountRequested - intent.tip + tip };
    return { amount: withoutTip + tip, withTip: { amount: withoutTip + tip, tip, ...requested } };
  }

  /** CANCELED, an authorization voided at the processor first. */
  async cancel(write: WriteContext, id: string, reason: CancellationReason | null): Promise<PaymentIntentRecord> {
    const intent = await this.find(write.db, write.locationId, id);
    refuseUnless('cancel', intent.status);
    if (intent.status === 'REQUIRES_CAPTURE') {
      // Captured first by a capture racing this cancel (which records it): this cancel lost.
      const voided = await this.voidAuthorization(write, intent, reason, { by: 'cancel' });
      return voided ?? this.refuseAsItNowStands(write.db, write.locationId, id, 'cancel');
    }
    const canceled = await inTransaction(write.db, async (trx) => {
      // Locked, so that the event's `previous` is the status this cancel moved it from.
      const current = await lockPaymentIntent(trx, write.locationId, id);
      if (current === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
      refuseUnless('cancel', current.status);
      if (current.status === 'REQUIRES_CAPTURE') return undefined;
      return move({ ...write, db: trx }, current, {
        by: 'cancel',
        changes: { status: 'CANCELED', cancellationReason: reason },
        event: 'payment_intent.canceled',
      });
    });
    // Authorized between the read and the lock: cancel it as such.
    return canceled ?? this.cancel(write, id, reason);
  }

  /** The capture window's sweep: voids every authorization past it. Answers how many it canceled. */
  async voidExpiredAuthorizations(db: Knex, locationId?: string): Promise<number> {
    let canceled = 0;
    for (const intent of await dueAuthorizations(db, SWEEP_BATCH, locationId)) {
      try {
        // A capture whose record was lost (its process died) is recorded here: the processor holds the money.
        const moved = await this.voidAuthorization(serviceWrite(db, intent.locationId), intent, 'AUTOMATIC', { by: 'capture window' });
        if (moved?.status === 'CANCELED') canceled += 1;
      } catch (error) {
        this.logger.warn({ err: error, paymentIntentId: intent.id }, 'voiding an authorization past its capture window failed; will retry');
      }
    }
    return canceled;
  }

  /**
   * Intents left PROCESSING longer than `olderThanSeconds` (their process
   * died while the processor was asked): the processor is asked again with
   * the same idempotency key, and its answer, the first one, is recorded.
   */
  async recoverProcessing(db: Knex, olderThanSeconds: number, locationId?: string): Promise<number> {
    let settled = 0;
    for (const intent of await stuckInProcessing(db, olderThanSeconds, SWEEP_BATCH, locationId)) {
      const after = await this.settle(serviceWrite(db, intent.locationId), intent);
      if (after.status !== 'PROCESSING') settled += 1;
    }
    return settled;
  }

  /** Asks the processor about a PROCESSING intent's attempt and records the answer; the intent unchanged if none came. */
  private async settle(write: WriteContext, intent: PaymentIntentRecord): Promise<PaymentIntentRecord> {
    const payment = intent.latestPayment as LatestPayment;
    let outcome: AuthorizeOutcome;
    try {
      outcome = await this.processor.authorize({
        locationId: write.locationId,
        idempotencyKey: processorKeys(intent.id, intent.paymentAttempts).authorize,
        amount: payment.amount,
        currency: intent.currency,
        card: payment.card,
        capture: intent.captureMethod === 'AUTOMATIC',
        partialAuthorization: intent.partialAuthorization,
        initiator: intent.offSession ? 'merchant' : 'customer',
        mandateId: intent.mandateId,
      });
    } catch (error) {
      this.logger.warn(
        { err: error, paymentIntentId: intent.id, processor: this.processor.name },
        'the processor did not answer; the intent stays PROCESSING until it does',
      );
      return intent;
    }
    // An approval marks the card used (the customer's card list is ordered by it) in the move's own statement; a decline does not.
    const moved = await move(write, intent, { ...this.authorizationStep(intent, payment, outcome), marksCardUsed: outcome.status === 'approved' });
    // Settled by someone else first (a recovery, or the confirm itself): as it now stands.
    return moved ?? this.find(write.db, write.locationId, intent.id);
  }

  private authorizationStep(intent: PaymentIntentRecord, asked: LatestPayment, outcome: AuthorizeOutcome): IntentStep {
    if (outcome.status !== 'approved') {
      return {
        by: 'processor',
        changes: {
          status: 'REQUIRES_PAYMENT_METHOD',
          paymentMethodId: null,
          lastPaymentError: outcome.error,
          latestPayment: { ...asked, status: 'FAILED' },
        },
        event: 'payment_intent.payment_failed',
      };
    }
    // A partial authorization (Toast's): the intent's amount becomes what was authorized, and amountRequested keeps what was asked.
    const authorized = outcome.amount ?? asked.amount;
    const payment = { ...asked, amount: authorized };
    const partial: IntentChanges =
      authorized < asked.amount ? { amount: authorized, amountRequested: intent.amount, tip: Math.min(intent.tip, authorized) } : {};
    if (outcome.captured) {
      return {
        by: 'processor',
        changes: { ...captured(payment, authorized), ...partial, processorReference: outcome.reference },
        event: 'payment_intent.succeeded',
      };
    }
    return {
      by: 'processor',
      changes: {
        ...partial,
        status: 'REQUIRES_CAPTURE',
        processorReference: outcome.reference,
        latestPayment: { ...payment, status: 'AUTHORIZED' },
        captureBefore: new Date(clockNow().getTime() + this.settings.captureWindowSeconds * 1000),
      },
      event: 'payment_intent.requires_capture',
    };
  }

  /**
   * Voids the intent's authorization and records it CANCELED. If the
   * processor says it was captured already, the capture is recorded
   * (SUCCEEDED) only by the capture window's sweep (healing a capture whose
   * record was lost); a cancel leaves that to the capture racing it and
   * answers 409. Undefined if another request moved it first.
   */
  private async voidAuthorization(
    write: WriteContext,
    intent: PaymentIntentRecord,
    reason: CancellationReason | null,
    cause: { by: 'cancel' | 'capture window' },
  ): Promise<PaymentIntentRecord | undefined> {
    const payment = intent.latestPayment as LatestPayment;
    const outcome = await this.ask(() =>
      this.processor.void({
        locationId: write.locationId,
        idempotencyKey: processorKeys(intent.id, intent.paymentAttempts).void,
        reference: intent.processorReference as string,
      }),
    );
    if (outcome.status === 'already_captured' && cause.by === 'cancel') throw statusConflict('cancel', 'SUCCEEDED');
    const step: IntentStep =
      outcome.status === 'voided'
        ? {
            by: cause.by,
            changes: { status: 'CANCELED', cancellationReason: reason, latestPayment: { ...payment, status: 'VOIDED' }, captureBefore: null },
            event: 'payment_intent.canceled',
          }
        : { by: cause.by, changes: captured(payment, outcome.amount), event: 'payment_intent.succeeded' };
    return move(write, intent, step);
  }

  /** The processor's answer; 503 with Retry-After when it gives none (nothing is recorded, the request can be retried). */
  private async ask<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.logger.warn({ err: error, processor: this.processor.name }, 'the payment processor did not answer');
      throw processorUnavailable();
    }
  }

  private async find(db: Knex, locationId: string, id: string): Promise<PaymentIntentRecord> {
    const intent = await findPaymentIntent(db, locationId, id);
    if (intent === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
    return intent;
  }

  /** Another request moved the intent between the read and the move: 409 naming where it is now. */
  private async refuseAsItNowStands(db: Knex, locationId: string, id: string, operation: 'capture' | 'cancel'): Promise<never> {
    const now = await this.find(db, locationId, id);
    refuseUnless(operation, now.status);
    throw new DomainError('CONFLICT');
  }
}
