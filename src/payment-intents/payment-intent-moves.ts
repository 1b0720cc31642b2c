import type { EventType } from '../change-log/event-types';
import type { WriteContext } from '../change-log/write-context';
import { DomainError } from '../platform/errors/domain-error';
import { allows, INTENT_OPERATIONS, PAYMENT_INTENT_MOVES, type IntentOperation, type MoveCause, type PaymentIntentStatus } from './payment-intent-status';
import { moveWithEvent, type IntentChanges, type PaymentIntentRecord } from './payment-intents.repository';
import { toPaymentIntentEventObject } from './payment-intents.schemas';

const PAST_TENSE: Record<IntentOperation, string> = {
  update: 'updated',
  confirm: 'confirmed',
  capture: 'captured',
  cancel: 'canceled',
  refund: 'refunded',
};

/** 409 naming the status the intent is in, or is being moved to by the request that won a race. */
export function statusConflict(operation: IntentOperation, status: PaymentIntentStatus): DomainError {
  return new DomainError('PAYMENT_INTENT_STATUS_CONFLICT', { message: `The payment intent is ${status} and cannot be ${PAST_TENSE[operation]}.` });
}

/** 409 naming the status, unless the status table lets `operation` act in it. */
export function refuseUnless(operation: IntentOperation, status: PaymentIntentStatus): void {
  if (!allows(operation, status)) throw statusConflict(operation, status);
}

/** 404 naming `paymentMethodId`: only a saved card of the intent's customer can be attached to it or pay it. */
export function notTheCustomersCard(): DomainError {
  return new DomainError('PAYMENT_METHOD_NOT_FOUND', {
    fieldName: 'paymentMethodId',
    message: "The payment method is not a saved card of the payment intent's customer.",
  });
}

const INTERNAL_FIELDS: ReadonlySet<keyof IntentChanges> = new Set(['paymentAttempts', 'processorReference', 'captureBefore', 'capturedAt']);

/** The fields a move changed as they were, as the API names them (an event's `previous`): unchanged and internal ones left out. */
function previousOf(intent: PaymentIntentRecord, changes: IntentChanges): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(changes) as Array<[keyof IntentChanges, unknown]>) {
    if (INTERNAL_FIELDS.has(field) || JSON.stringify(value) === JSON.stringify(intent[field])) continue;
    if (field === 'tip') previous.amountDetails = { tip: intent.tip };
    else if (field === 'partialAuthorization') previous.paymentMethodOptions = { card: { partialAuthorization: intent.partialAuthorization } };
    else previous[field] = intent[field];
  }
  return previous;
}

/** A step of an intent: the cause that makes it, what it changes (`status` among them, unless it stays), and its event. */
export interface IntentStep {
  by: MoveCause;
  changes: IntentChanges;
  event: EventType;
  /** An approved authorization: the card paid with gets its `lastUsedAt`, in the same statement. */
  marksCardUsed?: boolean;
}

/**
 * Whether the status table lets `by` take an intent from `from` to `to`: a
 * move of PAYMENT_INTENT_MOVES, or a change that keeps the status where the
 * operation may act (an update of an unpaid intent's amount, a failed capture).
 */
export function tableAllows(by: MoveCause, from: PaymentIntentStatus, to: PaymentIntentStatus): boolean {
  if (PAYMENT_INTENT_MOVES.some((move) => move.by === by && move.to === to && move.from.includes(from))) return true;
  return from === to && (INTENT_OPERATIONS as readonly MoveCause[]).includes(by) && allows(by as IntentOperation, from);
}

/**
 * Makes one step of an intent as it was read, with its event, in one
 * statement (on the pool, or in the caller's transaction): the step happens
 * only if the intent is still in the status and at the confirm attempt it
 * was read with, so of several requests or sweeps racing for one move
 * exactly one makes it. Undefined for the others. A step the status table
 * lacks is a programming error, thrown before anything is written.
 */
export function move(write: WriteContext, intent: PaymentIntentRecord, step: IntentStep): Promise<PaymentIntentRecord | undefined> {
  const to = step.changes.status ?? intent.status;
  if (!tableAllows(step.by, intent.status, to)) throw new Error(`the status table has no move by ${step.by} from ${intent.status} to ${to}`);
  const object = toPaymentIntentEventObject({ ...intent, ...step.changes });
  return moveWithEvent(
    write.db,
    intent,
    step.changes,
    { origin: write.origin, type: step.event, object, previous: previousOf(intent, step.changes) },
    step.marksCardUsed === true,
  );
}
