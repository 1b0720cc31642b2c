import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import { recordEvents, type EventToRecord } from '../change-log/record-events';
import { serviceWrite, type WriteContext } from '../change-log/write-context';
import { findPaymentIntent, lockPaymentIntent, type PaymentIntentRecord } from '../payment-intents';
import { DISPUTE_CARDS, SANDBOX_DISPUTE_AFTER_SECONDS } from '../payment-processor/sandbox-cards';
import { clockNow } from '../platform/clock/location-clock';
import type { PageQuery } from '../platform/db/cursor-page';
import { inTransaction } from '../platform/db/in-transaction';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { DomainError } from '../platform/errors/domain-error';
import type { Logger } from '../platform/logger';
import { disputeRulesInForce, type DisputeRules } from '../settlement';
import type { DisputeEvidence, DisputeRecord } from './dispute-record';
import { addDays, applyMove, availableOf, decisionDaysOf, dispatchEvent, disputeStatusConflict, responseDaysOf, withdrawIfDue } from './dispute-moves';
import { sandboxOutcome } from './dispute-outcome';
import { isClosed, moveFrom, OPENED_STATE, splitState, stateOf, type DisputeMoveCause } from './dispute-status';
import {
  disputesDecisionDue,
  disputesFundsDue,
  disputesPastResponse,
  findDispute,
  holdOnIntent,
  insertDispute,
  listDisputes,
  lockDispute,
  sandboxDisputeCardCaptures,
  saveDispute,
  type DisputeFilters,
} from './disputes.repository';
import { DISPUTE_CURSOR, INTENT_DISPUTE_CURSOR, toDispute, type DisputeEvidenceInput, type OpenDisputeInput } from './disputes.schemas';

/** A sweep's batch: what one run takes on; the next run takes the rest. */
const SWEEP_BATCH = 100;

/** A dispute's change, in one transaction with its intent and itself locked (in that order), and its events recorded in it. */
type Change = (
  trx: Knex.Transaction,
  locked: { dispute: DisputeRecord; intent: PaymentIntentRecord; rules: DisputeRules; at: Date },
) => Promise<{ dispute: DisputeRecord; events: EventToRecord[] }>;

/**
 * Disputes, one home (docs/disputes.md): opened (by the sandbox's cards and
 * helper), evidenced, accepted, and moved by the location's clock to their
 * deadline and decision. Every change locks the intent, then the dispute,
 * and moves as the status table says (dispute-status.ts); a chargeback's
 * money is held on the intent in the guarded update refunds use, so refunded
 * plus disputed never passes captured, whatever races.
 */
export class DisputesService {
  constructor(
    private readonly logger: Logger,
    /** Whether the sandbox processor is in use: its helpers exist only then. */
    readonly sandbox: boolean,
  ) {}

  /** Opens a dispute of a captured payment: the sandbox's helper, and its dispute cards. */
  async open(write: WriteContext, paymentIntentId: string, input: OpenDisputeInput): Promise<DisputeRecord> {
    return inTransaction(write.db, async (trx) => {
      const intent = await lockPaymentIntent(trx, write.locationId, paymentIntentId);
      if (intent === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
      if (intent.status !== 'SUCCEEDED') {
        throw new DomainError('PAYMENT_INTENT_STATUS_CONFLICT', {
          message: `The payment intent is ${intent.status} and cannot be disputed: only a captured (SUCCEEDED) payment can.`,
        });
      }
      const available = availableOf(intent);
      const amount = input.amount ?? available;
      if (available === 0 || amount > available) {
        throw new DomainError('DISPUTE_AMOUNT_EXCEEDS_AVAILABLE', {
          fieldName: 'amount',
          message: `${available} (minor units) of the payment is left to dispute: captured, less refunded, less already disputed.`,
        });
      }
      const at = clockNow();
      const rules = await disputeRulesInForce(trx, write.locationId);
      const card = intent.latestPayment?.card;
      const { stage, status } = splitState(OPENED_STATE[input.stage]);
      const opened: DisputeRecord = {
        locationId: write.locationId,
        id: uuidv7(),
        paymentIntentId,
        customerId: intent.customerId,
        externalReferenceId: intent.externalReferenceId,
        amount,
        currency: intent.currency,
        stage,
        status,
        reason: input.reason,
        networkReasonCode: input.networkReasonCode ?? null,
        card: card === undefined ? null : { brand: card.brand, lastFour: card.lastFour },
        evidence: {},
        forcedOutcome: null,
        openedAt: at,
        evidenceDueBy: addDays(at, responseDaysOf(rules, stage, card?.brand)),
        submittedAt: null,
        decisionExpectedBy: null,
        closedAt: null,
        closedBy: null,
        fundsDueAt: stage === 'CHARGEBACK' ? addDays(at, rules.fundsWithdrawnAfterDays) : null,
        fundsWithdrawnAt: null,
        fundsReinstatedAt: null,
        createdAt: at,
        updatedAt: at,
      };
      await insertDispute(trx, opened);
      await holdOnIntent(trx, opened, stage === 'CHARGEBACK' ? amount : 0);
      const withdrawn = await withdrawIfDue(trx, opened, at);
      await recordEvents(trx, write, [dispatchEvent('dispute.created', opened, null), ...withdrawn.events]);
      return withdrawn.dispute;
    });
  }

  /** Stages evidence over what was staged, and submits it when `submit` is true: once, before `evidenceDueBy`, in an open status. */
  async evidence(write: WriteContext, id: string, input: DisputeEvidenceInput): Promise<DisputeRecord> {
    return this.change(write, id, async (trx, { dispute, intent, rules, at }) => {
      if (isClosed(stateOf(dispute))) throw disputeStatusConflict(dispute, 'given evidence');
      if (dispute.submittedAt !== null) throw new DomainError('DISPUTE_EVIDENCE_ALREADY_SUBMITTED');
      if (at >= dispute.evidenceDueBy) {
        throw new DomainError('DISPUTE_EVIDENCE_DUE_PASSED', {
          message: `Evidence was due by ${dispute.evidenceDueBy.toISOString()}; no evidence is taken after.`,
        });
      }
      const { submit, documents, ...fields } = input;
      const evidence: DisputeEvidence = { ...dispute.evidence, ...fields };
      if (documents !== undefined) evidence.documents = documents.map((document) => ({ ...document, fileName: document.fileName ?? null }));
      if (submit === true) {
        const move = moveFrom('submit', stateOf(dispute));
        if (move === undefined) throw disputeStatusConflict(dispute, 'submitted');
        const decisionExpectedBy = addDays(at, decisionDaysOf(rules, dispute.card?.brand));
        return applyMove(trx, dispute, move, { at, rules, intent, changes: { evidence, submittedAt: at, decisionExpectedBy } });
      }
      if (JSON.stringify(evidence) === JSON.stringify(dispute.evidence)) return { dispute, events: [] };
      const staged: DisputeRecord = { ...dispute, evidence, updatedAt: at };
      await saveDispute(trx, staged);
      return { dispute: staged, events: [dispatchEvent('dispute.updated', staged, { evidence: toDispute(dispute).evidence })] };
    });
  }

  /** Accepts a chargeback (ACCEPTED, closed by the merchant); an accepted one (by the merchant or its deadline) is answered as it is, with no second event. */
  async accept(write: WriteContext, id: string): Promise<DisputeRecord> {
    return this.change(write, id, async (trx, { dispute, intent, rules, at }) => {
      if (dispute.status === 'ACCEPTED') return { dispute, events: [] };
      return this.moveBy(trx, 'accept', dispute, { at, rules, intent }, 'accepted');
    });
  }

  /** The sandbox's escalate: an open inquiry becomes a chargeback (or closes, refunded, when nothing is left to take). */
  async escalate(write: WriteContext, id: string): Promise<DisputeRecord> {
    return this.change(write, id, (trx, { dispute, intent, rules, at }) => this.intoChargeback(trx, 'escalate', dispute, { at, rules, intent }));
  }

  /** The sandbox's forced decision of a dispute under review, taken at once. */
  async decide(write: WriteContext, id: string, outcome: 'WON' | 'LOST'): Promise<DisputeRecord> {
    return this.change(write, id, (trx, { dispute, intent, rules, at }) =>
      this.decideNow(trx, { ...dispute, forcedOutcome: outcome }, { at, rules, intent }, at),
    );
  }

  async get(db: Knex, locationId: string, id: string): Promise<DisputeRecord> {
    const dispute = await findDispute(db, locationId, id);
    if (dispute === undefined) throw new DomainError('DISPUTE_NOT_FOUND');
    return dispute;
  }

  async list(db: Knex, locationId: string, filters: DisputeFilters, page: PageQuery): Promise<{ disputes: DisputeRecord[]; hasMore: boolean }> {
    await refuseUnknownCursor(page.startingAfter, DISPUTE_CURSOR, async (after) => (await findDispute(db, locationId, after)) !== undefined);
    return listDisputes(db, locationId, filters, page);
  }

  async listOfIntent(db: Knex, locationId: string, paymentIntentId: string, page: PageQuery): Promise<{ disputes: DisputeRecord[]; hasMore: boolean }> {
    if ((await findPaymentIntent(db, locationId, paymentIntentId)) === undefined) throw new DomainError('PAYMENT_INTENT_NOT_FOUND');
    await refuseUnknownCursor(
      page.startingAfter,
      INTENT_DISPUTE_CURSOR,
      async (after) => (await findDispute(db, locationId, after))?.paymentIntentId === paymentIntentId,
    );
    return listDisputes(db, locationId, { paymentIntentId }, page);
  }

  /** The clock's rule: every dispute past its `evidenceDueBy` with no evidence submitted moves (a chargeback ACCEPTED, an inquiry a chargeback). */
  async passDeadlines(db: Knex, locationId?: string): Promise<number> {
    return this.sweep(db, await disputesPastResponse(db, SWEEP_BATCH, locationId), 'deadline', async (trx, { dispute, intent, rules, at: now }) => {
      // As it stands once locked: another sweep (a replica's) may have moved it first, an inquiry to a chargeback with a new deadline.
      if (dispute.status !== 'NEEDS_RESPONSE' || dispute.evidenceDueBy > now) return { dispute, events: [] };
      const at = dispute.evidenceDueBy;
      if (dispute.stage === 'INQUIRY') return this.intoChargeback(trx, 'deadline', dispute, { at, rules, intent });
      return this.moveBy(trx, 'deadline', { ...dispute, closedAt: at }, { at, rules, intent }, 'closed by its deadline');
    });
  }

  /** The clock's rule: every dispute under review whose decision is due is decided (the sandbox's rule, dispute-outcome.ts). */
  async decideDue(db: Knex, locationId?: string): Promise<number> {
    return this.sweep(db, await disputesDecisionDue(db, SWEEP_BATCH, locationId), 'decision', (trx, { dispute, intent, rules, at }) =>
      dispute.status === 'UNDER_REVIEW' && (dispute.decisionExpectedBy ?? at) <= at
        ? this.decideNow(trx, dispute, { at, rules, intent }, dispute.decisionExpectedBy ?? at)
        : Promise.resolve({ dispute, events: [] }),
    );
  }

  /** The clock's rule: chargebacks whose funds are due are withdrawn (`disputes.fundsWithdrawnAfterDays` after they opened). */
  async withdrawDue(db: Knex, locationId?: string): Promise<number> {
    return this.sweep(db, await disputesFundsDue(db, SWEEP_BATCH, locationId), 'funds withdrawal', (trx, { dispute, at }) => withdrawIfDue(trx, dispute, at));
  }

  /** The sandbox's dispute cards: each capture SANDBOX_DISPUTE_AFTER_SECONDS old and never disputed is disputed, all that is left of it. */
  async openForSandboxCards(db: Knex, locationId?: string): Promise<number> {
    let opened = 0;
    for (const capture of await sandboxDisputeCardCaptures(db, SANDBOX_DISPUTE_AFTER_SECONDS, SWEEP_BATCH, locationId)) {
      const card = DISPUTE_CARDS[capture.last_four as keyof typeof DISPUTE_CARDS];
      try {
        await this.open(serviceWrite(db, capture.location_id), capture.id, { stage: card.stage, reason: card.reason });
        opened += 1;
      } catch (error) {
        // A refund or another replica got there first: the next turn finds it no longer due.
        if (!(error instanceof DomainError))
          this.logger.warn({ err: error, paymentIntentId: capture.id }, "opening a sandbox card's dispute failed; will retry");
      }
    }
    return opened;
  }

  private async change(write: WriteContext, id: string, change: Change): Promise<DisputeRecord> {
    return inTransaction(write.db, async (trx) => {
      const found = await findDispute(trx, write.locationId, id);
      if (found === undefined) throw new DomainError('DISPUTE_NOT_FOUND');
      const intent = (await lockPaymentIntent(trx, write.locationId, found.paymentIntentId)) as PaymentIntentRecord;
      const dispute = (await lockDispute(trx, write.locationId, id)) as DisputeRecord;
      const rules = await disputeRulesInForce(trx, write.locationId);
      const changed = await change(trx, { dispute, intent, rules, at: clockNow() });
      await recordEvents(trx, write, changed.events);
      return changed.dispute;
    });
  }

  private async sweep(db: Knex, due: readonly DisputeRecord[], what: string, change: Change): Promise<number> {
    let moved = 0;
    for (const dispute of due) {
      try {
        const after = await this.change(serviceWrite(db, dispute.locationId), dispute.id, change);
        if (JSON.stringify(after) !== JSON.stringify(dispute)) moved += 1;
      } catch (error) {
        this.logger.warn({ err: error, disputeId: dispute.id }, `a dispute's ${what} failed; will retry`);
      }
    }
    return moved;
  }

  private moveBy(
    trx: Knex.Transaction,
    by: DisputeMoveCause,
    dispute: DisputeRecord,
    context: { at: Date; rules: DisputeRules; intent: PaymentIntentRecord },
    change: string,
    outcome?: 'WON' | 'LOST',
  ) {
    const move = moveFrom(by, stateOf(dispute), outcome);
    if (move === undefined) throw disputeStatusConflict(dispute, change);
    return applyMove(trx, dispute, move, context);
  }

  /** An inquiry into a chargeback, holding what is left of the payment; closed by the refunds instead when they left nothing. */
  private intoChargeback(
    trx: Knex.Transaction,
    by: DisputeMoveCause,
    dispute: DisputeRecord,
    context: { at: Date; rules: DisputeRules; intent: PaymentIntentRecord },
    outcome?: 'LOST',
  ) {
    if (moveFrom(by, stateOf(dispute), outcome) !== undefined && availableOf(context.intent) === 0)
      return this.moveBy(trx, 'refund', dispute, context, 'closed');
    return this.moveBy(trx, by, dispute, context, 'escalated', outcome);
  }

  private decideNow(trx: Knex.Transaction, dispute: DisputeRecord, context: { at: Date; rules: DisputeRules; intent: PaymentIntentRecord }, decidedAt: Date) {
    const outcome = dispute.forcedOutcome ?? sandboxOutcome(dispute.reason, dispute.evidence);
    const at = decidedAt;
    if (dispute.stage === 'INQUIRY' && outcome === 'LOST') return this.intoChargeback(trx, 'decision', dispute, { ...context, at }, outcome);
    return this.moveBy(trx, 'decision', { ...dispute, closedAt: at }, { ...context, at }, 'decided', outcome);
  }
}

/**
 * A refund's part (refunds.service.ts): once refunds leave nothing of the
 * payment to refund, its open inquiries close, closed by REFUND, each with
 * its event, in a transaction of their own (or the refund's).
 */
export async function closeInquiriesOfRefunded(write: WriteContext, paymentIntentId: string): Promise<void> {
  await inTransaction(write.db, async (trx) => {
    const intent = await lockPaymentIntent(trx, write.locationId, paymentIntentId);
    if (intent === undefined || availableOf(intent) > 0 || intent.disputeStatus === null) return;
    const { disputes } = await listDisputes(trx, write.locationId, { paymentIntentId, stage: 'INQUIRY' }, { limit: 100 });
    const rules = await disputeRulesInForce(trx, write.locationId);
    const events: EventToRecord[] = [];
    for (const open of disputes) {
      const dispute = (await lockDispute(trx, write.locationId, open.id)) as DisputeRecord;
      const move = moveFrom('refund', stateOf(dispute));
      if (move === undefined) continue;
      events.push(...(await applyMove(trx, dispute, move, { at: clockNow(), rules, intent })).events);
    }
    await recordEvents(trx, write, events);
  });
}
