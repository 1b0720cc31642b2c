import { DomainError } from '../platform/errors/domain-error';

/**
 * A setup intent's statuses and every move between them: the one table the
 * services, their 409 answers, the document and the tests of every
 * (status, operation) pair read. Toast's statuses, with CANCELED for a
 * setup canceled or expired.
 */
export const SETUP_INTENT_STATUSES = ['REQUIRES_PAYMENT_METHOD', 'PROCESSING', 'SUCCEEDED', 'CANCELED'] as const;
export type SetupIntentStatus = (typeof SETUP_INTENT_STATUSES)[number];

/** The operations that act on an existing setup intent. */
export const SETUP_INTENT_OPERATIONS = ['confirm', 'cancel'] as const;
export type SetupIntentOperation = (typeof SETUP_INTENT_OPERATIONS)[number];

/** What makes a move: an operation of the API, or the service itself. */
export type SetupMoveCause = SetupIntentOperation | 'processor' | 'expiry' | 'erasure';

export interface SetupIntentMove {
  by: SetupMoveCause;
  from: readonly SetupIntentStatus[];
  to: SetupIntentStatus;
  when: string;
}

export const SETUP_INTENT_MOVES: readonly SetupIntentMove[] = [
  { by: 'confirm', from: ['REQUIRES_PAYMENT_METHOD'], to: 'PROCESSING', when: 'committed before the processor is asked to verify the card ($0)' },
  {
    by: 'processor',
    from: ['PROCESSING'],
    to: 'SUCCEEDED',
    when: 'the card is approved: saved to the customer (or the card with its fingerprint reused) and, for OFF_SESSION, the mandate made, in one transaction',
  },
  {
    by: 'processor',
    from: ['PROCESSING'],
    to: 'REQUIRES_PAYMENT_METHOD',
    when: 'the card is declined, the processor fails, or the customer reached the card cap meanwhile (`lastSetupError` says why); nothing is saved',
  },
  { by: 'cancel', from: ['REQUIRES_PAYMENT_METHOD'], to: 'CANCELED', when: 'the server side cancels it; its session secret dies' },
  {
    by: 'expiry',
    from: ['REQUIRES_PAYMENT_METHOD'],
    to: 'CANCELED',
    when: "still unfinished SETUP_INTENT_EXPIRY_MINUTES (30) after `creationDate` on the location's clock: `cancellationReason` EXPIRED",
  },
  { by: 'erasure', from: ['REQUIRES_PAYMENT_METHOD', 'PROCESSING'], to: 'CANCELED', when: "the setup intent's customer is erased" },
];

/** Toast's lifetime of an `SI_` secret, and of an unfinished setup intent. */
export const SETUP_INTENT_EXPIRY_MINUTES = 30;

const PAST_TENSE: Record<SetupIntentOperation, string> = { confirm: 'confirmed', cancel: 'canceled' };

export function statusesAllowing(operation: SetupIntentOperation): SetupIntentStatus[] {
  const from = new Set(SETUP_INTENT_MOVES.filter((move) => move.by === operation).flatMap((move) => move.from));
  return SETUP_INTENT_STATUSES.filter((status) => from.has(status));
}

/** Whether the table has a move by `by` from `from` to `to`. */
export function tableAllows(by: SetupMoveCause, from: SetupIntentStatus, to: SetupIntentStatus): boolean {
  return SETUP_INTENT_MOVES.some((move) => move.by === by && move.to === to && move.from.includes(from));
}

/** The statuses from which `by` moves a setup intent to `to`. */
export function statusesMovedBy(by: SetupMoveCause, to: SetupIntentStatus): SetupIntentStatus[] {
  return SETUP_INTENT_STATUSES.filter((status) => tableAllows(by, status, to));
}

/** A secret is live only while its setup intent can still move. */
export const FINAL_STATUSES: readonly SetupIntentStatus[] = SETUP_INTENT_STATUSES.filter(
  (status) => !SETUP_INTENT_MOVES.some((move) => move.from.includes(status)),
);

/** 409 naming the status, unless the status table lets `operation` act in it. */
export function refuseUnless(operation: SetupIntentOperation, status: SetupIntentStatus): void {
  if (!statusesAllowing(operation).includes(status)) {
    throw new DomainError('SETUP_INTENT_STATUS_CONFLICT', { message: `The setup intent is ${status} and cannot be ${PAST_TENSE[operation]}.` });
  }
}

/** The status table as Markdown, which `npm run openapi` writes into docs/cards-on-file.md: every move, then which operation each status allows. */
export function setupIntentLifecycle(): string {
  return [
    'A setup intent is created in REQUIRES_PAYMENT_METHOD and moves only as this table says:',
    '',
    '| From | To | By | When |',
    '|---|---|---|---|',
    ...SETUP_INTENT_MOVES.map((move) => `| ${move.from.join(', ')} | ${move.to} | ${move.by} | ${move.when} |`),
    '',
    'An operation in a status that does not allow it answers 409 (`SETUP_INTENT_STATUS_CONFLICT`) naming the status:',
    '',
    `| Status | ${SETUP_INTENT_OPERATIONS.join(' | ')} |`,
    `|---|${SETUP_INTENT_OPERATIONS.map(() => '---|').join('')}`,
    ...SETUP_INTENT_STATUSES.map(
      (status) => `| ${status} | ${SETUP_INTENT_OPERATIONS.map((operation) => (statusesAllowing(operation).includes(status) ? 'yes' : '409')).join(' | ')} |`,
    ),
  ].join('\n');
}

/** What a setup intent operation's description says of the statuses: the table itself is in docs/cards-on-file.md only (setupIntentLifecycle). */
export const SETUP_INTENT_STATUS_POINTER =
  'Statuses and moves: the setup intent status table (docs/cards-on-file.md). An operation in a status that does not allow it answers 409 (`SETUP_INTENT_STATUS_CONFLICT`) naming the status.';
