import type { Knex } from 'knex';
import type { EventToRecord } from '../change-log/record-events';
import type { PaymentIntentRecord } from '../payment-intents';
import { clockNow } from '../platform/clock/location-clock';
import { DomainError } from '../platform/errors/domain-error';
import type { DisputeRules } from '../settlement';
import type { DisputeRecord } from './dispute-record';
import { isClosed, splitState, stateOf, type DisputeMove, type DisputeStage } from './dispute-status';
import { holdOnIntent, saveDispute, writeDisputeLines } from './disputes.repository';
import { toDispute } from './disputes.schemas';

const DAY_MS = 24 * 60 * 60 * 1000;

export function addDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * DAY_MS);
}

/** Days to answer a dispute at `stage` of a card of `brand`, by the location's rules (an inquiry's are its own). */
export function responseDaysOf(rules: DisputeRules, stage: DisputeStage, brand: string | undefined): number {
  if (stage === 'INQUIRY') return rules.responseDays.inquiry;
  return (rules.responseDays as Record<string, number>)[brand ?? ''] ?? rules.responseDays.other;
}

/** Days from submitted evidence to the decision, by the card's brand. */
export function decisionDaysOf(rules: DisputeRules, brand: string | undefined): number {
  return (rules.decisionDays as Record<string, number>)[brand ?? ''] ?? rules.decisionDays.other;
}

/** What is left of a payment to refund or dispute: captured, less refunded, less what chargebacks hold. */
export function availableOf(intent: PaymentIntentRecord): number {
  return intent.amountCaptured - intent.amountRefunded - intent.amountDisputed;
}

/** 409 naming the dispute's stage and status, for a change the status table does not allow there. */
export function disputeStatusConflict(dispute: DisputeRecord, change: string): DomainError {
  const state = stateOf(dispute);
  const why = isClosed(state) ? 'it is closed' : 'its status does not allow it';
  return new DomainError('DISPUTE_STATUS_CONFLICT', { message: `The dispute is ${state} and cannot be ${change}: ${why}.` });
}

export function dispatchEvent(type: EventToRecord['type'], dispute: DisputeRecord, previous: object | null): EventToRecord {
  return { type, customerId: dispute.customerId, object: toDispute(dispute), previous };
}

/**
 * A chargeback's amount and the dispute fee withdrawn, if due by `now` and
 * not yet: its two ledger lines (once each, whatever retries) and its event.
 * The caller holds the dispute's lock.
 */
export async function withdrawIfDue(trx: Knex.Transaction, dispute: DisputeRecord, now: Date): Promise<{ dispute: DisputeRecord; events: EventToRecord[] }> {
  if (dispute.stage !== 'CHARGEBACK' || dispute.fundsWithdrawnAt !== null || dispute.fundsDueAt === null || dispute.fundsDueAt > now) {
    return { dispute, events: [] };
  }
  const withdrawn: DisputeRecord = { ...dispute, fundsWithdrawnAt: now, updatedAt: now };
  await saveDispute(trx, withdrawn);
  await writeDisputeLines(trx, withdrawn, ['DISPUTE_WITHDRAWAL', 'DISPUTE_FEE']);
  return { dispute: withdrawn, events: [dispatchEvent('dispute.funds_withdrawn', withdrawn, { fundsWithdrawnAt: null })] };
}

/** What a move needs besides the table's row: when it happens, the rules in force, the intent (locked) and its own changes. */
export interface MoveContext {
  at: Date;
  rules: DisputeRules;
  intent: PaymentIntentRecord;
  /** Fields the move sets besides its stage, status and money (submittedAt, evidence, …). */
  changes?: Partial<DisputeRecord>;
}

/**
 * One move of the status table, in the caller's transaction (the intent
 * and the dispute locked, in that order): the dispute's new state, the
 * money the move holds or gives back on the intent (the guarded update
 * refunds use) and writes to the ledger, and its events. A move into a
 * chargeback holds what is left of the payment up to the dispute's amount.
 */
export async function applyMove(
  trx: Knex.Transaction,
  dispute: DisputeRecord,
  move: DisputeMove,
  context: MoveContext,
): Promise<{ dispute: DisputeRecord; events: EventToRecord[] }> {
  const { at, rules, intent } = context;
  const { stage, status } = splitState(move.to);
  let moved: DisputeRecord = { ...dispute, ...context.changes, stage, status, updatedAt: at };
  if (move.closedBy !== undefined) moved = { ...moved, closedBy: move.closedBy, closedAt: moved.closedAt ?? at };
  let hold = 0;
  if (move.money === 'withdrawal') {
    const amount = Math.min(dispute.amount, availableOf(intent));
    hold = amount;
    moved = {
      ...moved,
      amount,
      openedAt: dispute.stage === 'INQUIRY' ? at : dispute.openedAt,
      evidenceDueBy: addDays(at, responseDaysOf(rules, 'CHARGEBACK', dispute.card?.brand)),
      submittedAt: null,
      decisionExpectedBy: null,
      fundsDueAt: addDays(at, rules.fundsWithdrawnAfterDays),
    };
  }
  const events: EventToRecord[] = [];
  if (move.money === 'reinstatement') {
    hold = -dispute.amount;
    if (dispute.fundsWithdrawnAt === null) moved = { ...moved, fundsDueAt: null };
    else moved = { ...moved, fundsReinstatedAt: at };
  }
  if (!(await holdOnIntent(trx, moved, hold))) throw new Error(`dispute ${dispute.id}: the hold of ${hold} did not fit its locked intent`);
  await saveDispute(trx, moved);
  const previous: Record<string, unknown> = { status: dispute.status };
  if (dispute.stage !== moved.stage) previous.stage = dispute.stage;
  if (context.changes?.evidence !== undefined) previous.evidence = toDispute(dispute).evidence;
  events.push(dispatchEvent(move.event, moved, previous));
  if (move.money === 'reinstatement' && moved.fundsReinstatedAt !== null) {
    await writeDisputeLines(trx, moved, rules.feeReturnedWhenWon ? ['DISPUTE_REINSTATEMENT', 'DISPUTE_FEE_RETURN'] : ['DISPUTE_REINSTATEMENT']);
    events.push(dispatchEvent('dispute.funds_reinstated', moved, { fundsReinstatedAt: null }));
  }
  // Withdrawn when due on the clock now (a deadline's move is dated by the deadline, its money by when it moves).
  const withdrawn = await withdrawIfDue(trx, moved, clockNow());
  return { dispute: withdrawn.dispute, events: [...events, ...withdrawn.events] };
}
