import { INTENT_OPERATIONS, PAYMENT_INTENT_MOVES, PAYMENT_INTENT_STATUSES, statusesAllowing } from './payment-intent-status';

/** The currencies the committed document shows: the service's default list. */
export const DOCUMENTED_CURRENCIES = ['USD', 'CAD'] as const;

/** The status table of payment-intent-status.ts, as Markdown for the document: every move, then which operation each status allows. */
export function paymentIntentLifecycle(): string {
  const moves = PAYMENT_INTENT_MOVES.map((move) => `| ${move.from.join(', ')} | ${move.to} | ${move.by} | ${move.when} |`);
  const allowed = PAYMENT_INTENT_STATUSES.map(
    (status) => `| ${status} | ${INTENT_OPERATIONS.map((operation) => (statusesAllowing(operation).includes(status) ? 'yes' : '409')).join(' | ')} |`,
  );
  return [
    'A payment intent is created in REQUIRES_PAYMENT_METHOD and moves only as this table says:',
    '',
    '| From | To | By | When |',
    '|---|---|---|---|',
    ...moves,
    '',
    'An operation in a status that does not allow it answers 409 (`PAYMENT_INTENT_STATUS_CONFLICT`) naming the status:',
    '',
    `| Status | ${INTENT_OPERATIONS.join(' | ')} |`,
    `|---|${INTENT_OPERATIONS.map(() => '---|').join('')}`,
    ...allowed,
  ].join('\n');
}

/** What an intent operation's description says of the statuses: the table is the document's description's (one copy), and docs/checkout.md's. */
export const STATUS_TABLE_POINTER =
  "Statuses and moves: the status table in this document's description. An operation in a status that does not allow it answers 409 (`PAYMENT_INTENT_STATUS_CONFLICT`) naming the status.";
