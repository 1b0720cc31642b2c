import type { EventType } from '../change-log/event-types';

/** A refund's statuses, and its reasons as Stripe names them. */
export const REFUND_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const REFUND_REASONS = ['DUPLICATE', 'FRAUDULENT', 'REQUESTED_BY_CUSTOMER'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/** A refund is made PENDING (its amount taken from the intent's refundable amount), then moves once, as this table says. */
export const REFUND_MOVES = [
  { from: 'PENDING', to: 'SUCCEEDED', event: 'refund.succeeded', when: 'the processor refunds it, at once or later' },
  { from: 'PENDING', to: 'FAILED', event: 'refund.failed', when: 'the processor declines it (`failureCode` says why); its amount is refundable again' },
] as const satisfies ReadonlyArray<{ from: RefundStatus; to: RefundStatus; event: EventType; when: string }>;

export type SettledRefundStatus = (typeof REFUND_MOVES)[number]['to'];

/** The status a refund is made in: its amount is taken from the intent's refundable amount at once. */
export const REFUND_CREATED_STATUS = 'PENDING' satisfies RefundStatus;

/** The statuses a refund can still move from (the table's `from`s): what its guards and its sweep ask for. */
export const REFUND_UNSETTLED_STATUSES: readonly RefundStatus[] = [...new Set(REFUND_MOVES.map((move) => move.from))];

/** Those statuses as an SQL list for a statement's text (`status in ('PENDING')`): a constant, so a partial index on it is used. */
export const REFUND_UNSETTLED_SQL = REFUND_UNSETTLED_STATUSES.map((status) => `'${status}'`).join(', ');

/** The event of a refund's move to `to`. */
export function refundEventOf(to: SettledRefundStatus): EventType {
  return REFUND_MOVES.find((move) => move.to === to)!.event;
}

/** The table as Markdown, for the document and docs/checkout.md. */
export function refundLifecycle(): string {
  return [
    'A refund is created PENDING and moves once:',
    '',
    '| From | To | Event | When |',
    '|---|---|---|---|',
    ...REFUND_MOVES.map((move) => `| ${move.from} | ${move.to} | \`${move.event}\` | ${move.when} |`),
  ].join('\n');
}
