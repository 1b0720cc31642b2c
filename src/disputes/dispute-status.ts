import type { EventType } from '../change-log/event-types';

/**
 * A dispute's stages, statuses and every move between them: the one table
 * the service's guards, its 409 answers, the document and docs/disputes.md
 * all read (as payment-intent-status.ts is for intents).
 */
export const DISPUTE_STAGES = ['INQUIRY', 'CHARGEBACK'] as const;
export type DisputeStage = (typeof DISPUTE_STAGES)[number];

export const DISPUTE_STATUSES = ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED', 'CLOSED'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** Stripe's reasons, uppercase as the service's enums are. */
export const DISPUTE_REASONS = [
  'FRAUDULENT',
  'DUPLICATE',
  'PRODUCT_NOT_RECEIVED',
  'PRODUCT_UNACCEPTABLE',
  'CREDIT_NOT_PROCESSED',
  'UNRECOGNIZED',
  'SUBSCRIPTION_CANCELED',
  'GENERAL',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** Who ended a dispute: the merchant's accept, a deadline passed, the issuer's decision, or a refund of what an inquiry asked about. */
export const DISPUTE_CLOSERS = ['MERCHANT', 'DEADLINE', 'ISSUER', 'REFUND'] as const;
export type DisputeCloser = (typeof DISPUTE_CLOSERS)[number];

/** A stage and a status together: what a move goes from and to. */
export type DisputeState = `${DisputeStage}/${DisputeStatus}`;

/** What makes a move: an operation of the API, a rule on the location's clock, a refund, or the sandbox's helpers. */
export type DisputeMoveCause = 'submit' | 'accept' | 'deadline' | 'decision' | 'refund' | 'escalate';

/** The money a move writes to the ledger (docs/settlement.md's line types). */
export type DisputeMoney = 'none' | 'withdrawal' | 'reinstatement';

export interface DisputeMove {
  by: DisputeMoveCause;
  from: readonly DisputeState[];
  to: DisputeState;
  /** For a move that ends the dispute. */
  closedBy?: DisputeCloser;
  /** For a decision: the outcome that makes this move. */
  outcome?: 'WON' | 'LOST';
  event: EventType;
  money: DisputeMoney;
  when: string;
}

const INQUIRY_OPEN = ['INQUIRY/NEEDS_RESPONSE', 'INQUIRY/UNDER_REVIEW'] as const;

/** The states a dispute is opened in, by stage: an inquiry moves no money; a chargeback takes its amount and fee. */
export const OPENED_STATE: Record<DisputeStage, DisputeState> = { INQUIRY: 'INQUIRY/NEEDS_RESPONSE', CHARGEBACK: 'CHARGEBACK/NEEDS_RESPONSE' };

export const DISPUTE_MOVES: readonly DisputeMove[] = [
  {
    by: 'submit',
    from: ['INQUIRY/NEEDS_RESPONSE'],
    to: 'INQUIRY/UNDER_REVIEW',
    event: 'dispute.updated',
    money: 'none',
    when: 'evidence submitted before `evidenceDueBy`',
  },
  {
    by: 'submit',
    from: ['CHARGEBACK/NEEDS_RESPONSE'],
    to: 'CHARGEBACK/UNDER_REVIEW',
    event: 'dispute.updated',
    money: 'none',
    when: 'evidence submitted before `evidenceDueBy`; `decisionExpectedBy` set',
  },
  {
    by: 'accept',
    from: ['CHARGEBACK/NEEDS_RESPONSE'],
    to: 'CHARGEBACK/ACCEPTED',
    closedBy: 'MERCHANT',
    event: 'dispute.closed',
    money: 'none',
    when: 'the merchant accepts it (the money stays withdrawn)',
  },
  {
    by: 'deadline',
    from: ['CHARGEBACK/NEEDS_RESPONSE'],
    to: 'CHARGEBACK/ACCEPTED',
    closedBy: 'DEADLINE',
    event: 'dispute.closed',
    money: 'none',
    when: '`evidenceDueBy` passes with no evidence submitted (Toast: "automatically processed as Accepted")',
  },
  {
    by: 'deadline',
    from: ['INQUIRY/NEEDS_RESPONSE'],
    to: 'CHARGEBACK/NEEDS_RESPONSE',
    event: 'dispute.updated',
    money: 'withdrawal',
    when: '`evidenceDueBy` passes with no answer to the inquiry: it becomes a chargeback with a new `evidenceDueBy`',
  },
  {
    by: 'decision',
    from: ['INQUIRY/UNDER_REVIEW'],
    to: 'INQUIRY/CLOSED',
    closedBy: 'ISSUER',
    outcome: 'WON',
    event: 'dispute.closed',
    money: 'none',
    when: '`decisionExpectedBy` comes and the issuer is satisfied',
  },
  {
    by: 'decision',
    from: ['INQUIRY/UNDER_REVIEW'],
    to: 'CHARGEBACK/NEEDS_RESPONSE',
    outcome: 'LOST',
    event: 'dispute.updated',
    money: 'withdrawal',
    when: '`decisionExpectedBy` comes and the issuer is not satisfied: a chargeback follows',
  },
  {
    by: 'decision',
    from: ['CHARGEBACK/UNDER_REVIEW'],
    to: 'CHARGEBACK/WON',
    closedBy: 'ISSUER',
    outcome: 'WON',
    event: 'dispute.closed',
    money: 'reinstatement',
    when: '`decisionExpectedBy` comes and the issuer decides for the merchant',
  },
  {
    by: 'decision',
    from: ['CHARGEBACK/UNDER_REVIEW'],
    to: 'CHARGEBACK/LOST',
    closedBy: 'ISSUER',
    outcome: 'LOST',
    event: 'dispute.closed',
    money: 'none',
    when: '`decisionExpectedBy` comes and the issuer decides for the cardholder',
  },
  {
    by: 'refund',
    from: INQUIRY_OPEN,
    to: 'INQUIRY/CLOSED',
    closedBy: 'REFUND',
    event: 'dispute.closed',
    money: 'none',
    when: 'refunds leave nothing of the payment to refund (Stripe: no funds are withdrawn from a fully refunded payment)',
  },
  {
    by: 'escalate',
    from: INQUIRY_OPEN,
    to: 'CHARGEBACK/NEEDS_RESPONSE',
    event: 'dispute.updated',
    money: 'withdrawal',
    when: "the sandbox's escalate helper (what the issuer does when an inquiry's answer does not satisfy the cardholder)",
  },
];

export function stateOf(dispute: { stage: DisputeStage; status: DisputeStatus }): DisputeState {
  return `${dispute.stage}/${dispute.status}`;
}

export function splitState(state: DisputeState): { stage: DisputeStage; status: DisputeStatus } {
  const [stage, status] = state.split('/') as [DisputeStage, DisputeStatus];
  return { stage, status };
}

/** The move `by` makes from `state` (with `outcome`, for a decision), if the table has one. */
export function moveFrom(by: DisputeMoveCause, state: DisputeState, outcome?: 'WON' | 'LOST'): DisputeMove | undefined {
  return DISPUTE_MOVES.find((move) => move.by === by && move.from.includes(state) && (move.outcome === undefined || move.outcome === outcome));
}

/** A dispute in a state no move leaves is closed: nothing changes it any more. */
export function isClosed(state: DisputeState): boolean {
  return !DISPUTE_MOVES.some((move) => move.from.includes(state));
}

/** The table as Markdown, for the document and docs/disputes.md. */
export function disputeLifecycle(): string {
  const money: Record<DisputeMoney, string> = {
    none: '\u2013',
    withdrawal: '`DISPUTE_WITHDRAWAL` and `DISPUTE_FEE`',
    reinstatement: '`DISPUTE_REINSTATEMENT` (and `DISPUTE_FEE_RETURN` when the fee is given back)',
  };
  return [
    'A dispute opens as INQUIRY/NEEDS_RESPONSE (no money moves) or CHARGEBACK/NEEDS_RESPONSE (its amount and the dispute fee are withdrawn), and moves only as this table says:',
    '',
    '| From | To | By | Closed by | Event | Money | When |',
    '|---|---|---|---|---|---|---|',
    ...DISPUTE_MOVES.map(
      (move) =>
        `| ${move.from.join(', ')} | ${move.to} | ${move.by}${move.outcome === undefined ? '' : ` (${move.outcome})`} | ${move.closedBy ?? '\u2013'} | \`${move.event}\` | ${money[move.money]} | ${move.when} |`,
    ),
    '',
    'A change in a state the table does not allow answers 409 `DISPUTE_STATUS_CONFLICT` naming the state.',
  ].join('\n');
}
