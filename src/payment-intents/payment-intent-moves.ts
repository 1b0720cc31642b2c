import type { Knex } from 'knex';
import type { EventType } from '../events/event-types';
import { eventBindings, recordChanges } from '../events/event-log';
import { DomainError } from '../platform/errors/domain-error';
import type { WriteContext } from '../platform/http/request-context';
import { allows, type IntentOperation, type PaymentIntentStatus } from './payment-intent-status';
import { changePaymentIntent, moveAttemptWithEvent, type IntentChanges, type PaymentIntentRecord } from './payment-intents.repository';
import { toPaymentIntentEventObject } from './payment-intents.schemas';

/** Who made a change: a request's origin, or none for the service's own sweeps. */
export type ChangeContext = Omit<WriteContext, 'db'>;

/** The origin of a move the service makes on its own (the capture window, a recovery): no request, no client. */
export function serviceContext(locationId: string): ChangeContext {
  return { locationId, origin: { requestId: null, clientId: null, idempotencyKey: null } };
}

const PAST_TENSE: Record<IntentOperation, string> = { update: 'updated', confirm: 'confirmed', capture: 'captured', cancel: 'canceled' };

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

const INTERNAL_FIELDS: ReadonlySet<keyof IntentChanges> = new Set(['paymentAttempts', 'processorReference', 'captureBefore']);

/** The fields a move changed as they were, as the API names them (an event's `previous`): unchanged and internal ones left out. */
function previousOf(intent: PaymentIntentRecord, changes: IntentChanges): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(changes) as Array<[keyof IntentChanges, unknown]>) {
    if (INTERNAL_FIELDS.has(field) || JSON.stringify(value) === JSON.stringify(intent[field])) continue;
    if (field === 'tip') previous.amountDetails = { tip: intent.tip };
    else previous[field] = intent[field];
  }
  return previous;
}

/**
 * Makes one move of the status table with its event, in `trx`: the change
 * happens only if the guard still holds (the status, and the confirm
 * attempt), so of several requests or sweeps racing for one move exactly one
 * makes it and records it. Undefined for the others.
 */
export async function moveIntent(
  trx: Knex.Transaction,
  context: ChangeContext,
  intent: PaymentIntentRecord,
  move: { from: readonly PaymentIntentStatus[]; attempt?: number; changes: IntentChanges; event: EventType },
): Promise<PaymentIntentRecord | undefined> {
  const moved = await changePaymentIntent(trx, { locationId: context.locationId, id: intent.id }, move, move.changes);
  if (moved !== undefined) {
    await recordChanges(trx, context, [
      { type: move.event, customerId: moved.customerId, object: toPaymentIntentEventObject(moved), previous: previousOf(intent, move.changes) },
    ]);
  }
  return moved;
}

/**
 * A move of a confirm attempt (its answer recorded, its capture, its void)
 * and its event in one statement, on the pool: no transaction. Also a move
 * made in a transaction that locked the intent (a confirm's PROCESSING, a
 * cancel): one statement instead of an update and an insert. The event's
 * object is the intent as read with the changes applied: the guard (status
 * and attempt) pins every field but the two an erasure cuts, which the
 * statement takes from the row (payment-intents.repository.ts).
 */
export function moveAttempt(
  db: Knex,
  context: ChangeContext,
  intent: PaymentIntentRecord,
  move: { from: readonly PaymentIntentStatus[]; attempt: number; changes: IntentChanges; event: EventType },
): Promise<PaymentIntentRecord | undefined> {
  const object = toPaymentIntentEventObject({ ...intent, ...move.changes });
  const event = [...eventBindings(context.origin, move.event), JSON.stringify(object), JSON.stringify(previousOf(intent, move.changes))];
  return moveAttemptWithEvent(db, { locationId: context.locationId, id: intent.id }, move, move.changes, event);
}
