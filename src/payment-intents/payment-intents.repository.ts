import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { StandingInstructionType } from '../mandates';
import type { PaymentError } from '../payment-processor/payment-processor';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { runRecording, statementRecordingEvent, type BoundEvent } from '../change-log/record-events';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
import { runSweep, sweepStatement } from '../platform/db/sweep-statement';
import { captureLineWrite } from '../settlement';
import { secretBox, secretContext } from '../platform/secrets/secret-box';
import { statusesMovedBy, type PaymentIntentStatus } from './payment-intent-status';

export const CANCELLATION_REASONS = ['DUPLICATE', 'FRAUDULENT', 'REQUESTED_BY_CUSTOMER', 'ABANDONED', 'AUTOMATIC', 'EXPIRED'] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

export const PAYMENT_STATUSES = ['PENDING', 'AUTHORIZED', 'CAPTURED', 'FAILED', 'VOIDED'] as const;

/** The payment of a confirm, as the intent's `latestPayment` shows it (stored as shown). */
export interface LatestPayment {
  id: string;
  status: (typeof PAYMENT_STATUSES)[number];
  /** Authorized, then what was captured. */
  amount: number;
  createdAt: string;
  card: { brand: string; lastFour: string; expiry: { month: string; year: string } };
}

export interface PaymentIntentRecord {
  locationId: string;
  id: string;
  externalReferenceId: string;
  customerId: string | null;
  amount: number;
  currency: string;
  captureMethod: 'MANUAL' | 'AUTOMATIC';
  status: PaymentIntentStatus;
  email: string | null;
  tip: number;
  paymentMethodConfigurationId: string | null;
  standingInstructionType: StandingInstructionType | null;
  offSession: boolean;
  mandateId: string | null;
  /** The integration context whose default card pays the intent when a confirm names none (and no mandate does). */
  contextName: string | null;
  /** Whether an authorization of less than the amount is taken (Toast's paymentMethodOptions.card.partialAuthorization). */
  partialAuthorization: boolean;
  /** The amount asked for, once a partial authorization made `amount` what was authorized; null otherwise. */
  amountRequested: number | null;
  sessionSecret: string;
  /** The card attached (REQUIRES_CONFIRMATION) or paid with. */
  paymentMethodId: string | null;
  /** Confirms so far: the processor's idempotency keys are made of it. */
  paymentAttempts: number;
  latestPayment: LatestPayment | null;
  lastPaymentError: PaymentError | null;
  /** The processor's reference of the authorization. */
  processorReference: string | null;
  /** An authorization not captured by then is voided. */
  captureBefore: Date | null;
  cancellationReason: CancellationReason | null;
  /** What the processor captured (0 before); refunds are taken from it. */
  amountCaptured: number;
  /** What PENDING and SUCCEEDED refunds take from the captured amount. */
  amountRefunded: number;
  /** What chargebacks hold of the captured amount (src/disputes keeps it). */
  amountDisputed: number;
  /** The status of the intent's dispute moved last; null when never disputed. */
  disputeStatus: string | null;
  /** When the capture was recorded: the refund window counts from it. */
  capturedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface PaymentIntentRow {
  location_id: string;
  id: string;
  external_reference_id: string;
  customer_id: string | null;
  amount: number;
  currency: string;
  capture_method: PaymentIntentRecord['captureMethod'];
  status: PaymentIntentStatus;
  email: string | null;
  tip: number;
  payment_method_configuration_id: string | null;
  standing_instruction_type: PaymentIntentRecord['standingInstructionType'];
  off_session: boolean;
  mandate_id: string | null;
  context_name: string | null;
  partial_authorization: boolean;
  amount_requested: number | null;
  session_secret: string;
  payment_method_id: string | null;
  payment_attempts: number;
  latest_payment: LatestPayment | null;
  last_payment_error: PaymentError | null;
  processor_reference: string | null;
  capture_before: Date | string | null;
  cancellation_reason: CancellationReason | null;
  amount_captured: number;
  amount_refunded: number;
  amount_disputed: number;
  dispute_status: string | null;
  captured_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const TABLE = 'payment_intents';

/** What a create writes. */
const INSERTED_COLUMNS = [
  'location_id',
  'id',
  'external_reference_id',
  'customer_id',
  'amount',
  'currency',
  'capture_method',
  'status',
  'email',
  'tip',
  'payment_method_configuration_id',
  'standing_instruction_type',
  'off_session',
  'mandate_id',
  'context_name',
  'partial_authorization',
  'session_secret',
] as const satisfies ReadonlyArray<keyof PaymentIntentRow>;

/** The columns a record is read from, named rather than `*`: a column added later is not read until the record needs it. A create leaves the last ones to their defaults. */
const COLUMNS = [
  ...INSERTED_COLUMNS,
  'payment_method_id',
  'payment_attempts',
  'latest_payment',
  'last_payment_error',
  'processor_reference',
  'capture_before',
  'cancellation_reason',
  'amount_captured',
  'amount_refunded',
  'amount_disputed',
  'dispute_status',
  'captured_at',
  'amount_requested',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof PaymentIntentRow>;

function toRecord(row: PaymentIntentRow): PaymentIntentRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    externalReferenceId: row.external_reference_id,
    customerId: row.customer_id,
    amount: row.amount,
    currency: row.currency,
    captureMethod: row.capture_method,
    status: row.status,
    email: row.email,
    tip: row.tip,
    paymentMethodConfigurationId: row.payment_method_configuration_id,
    standingInstructionType: row.standing_instruction_type,
    offSession: row.off_session,
    mandateId: row.mandate_id,
    contextName: row.context_name,
    partialAuthorization: row.partial_authorization,
    amountRequested: row.amount_requested,
    sessionSecret: secretBox().open(row.session_secret, secretContext(TABLE, row.location_id, row.id)),
    paymentMethodId: row.payment_method_id,
    paymentAttempts: row.payment_attempts,
    latestPayment: row.latest_payment,
    lastPaymentError: row.last_payment_error,
    processorReference: row.processor_reference,
    captureBefore: row.capture_before === null ? null : new Date(row.capture_before),
    cancellationReason: row.cancellation_reason,
    amountCaptured: row.amount_captured,
    amountRefunded: row.amount_refunded,
    amountDisputed: row.amount_disputed,
    disputeStatus: row.dispute_status,
    capturedAt: row.captured_at === null ? null : new Date(row.captured_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** What a create writes: the lifecycle's fields start empty. */
export type NewPaymentIntent = Omit<
  PaymentIntentRecord,
  | 'createdAt'
  | 'updatedAt'
  | 'paymentMethodId'
  | 'paymentAttempts'
  | 'latestPayment'
  | 'lastPaymentError'
  | 'processorReference'
  | 'captureBefore'
  | 'cancellationReason'
  | 'amountCaptured'
  | 'amountRefunded'
  | 'amountDisputed'
  | 'disputeStatus'
  | 'capturedAt'
  | 'amountRequested'
>;

/** The fields a move or an update may change, and their columns. */
const CHANGEABLE = {
  status: 'status',
  amount: 'amount',
  tip: 'tip',
  email: 'email',
  customerId: 'customer_id',
  externalReferenceId: 'external_reference_id',
  paymentMethodId: 'payment_method_id',
  paymentAttempts: 'payment_attempts',
  latestPayment: 'latest_payment',
  lastPaymentError: 'last_payment_error',
  processorReference: 'processor_reference',
  captureBefore: 'capture_before',
  cancellationReason: 'cancellation_reason',
  amountCaptured: 'amount_captured',
  capturedAt: 'captured_at',
  partialAuthorization: 'partial_authorization',
  amountRequested: 'amount_requested',
  contextName: 'context_name',
} as const satisfies Partial<Record<keyof PaymentIntentRecord, keyof PaymentIntentRow>>;

export type IntentChanges = Partial<Pick<PaymentIntentRecord, keyof typeof CHANGEABLE>>;

const JSON_FIELDS: ReadonlySet<string> = new Set(['latestPayment', 'lastPaymentError']);

function columnsOf(changes: IntentChanges): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(changes).map(([field, value]) => [
      CHANGEABLE[field as keyof typeof CHANGEABLE],
      JSON_FIELDS.has(field) && value !== null ? JSON.stringify(value) : value,
    ]),
  );
}

/**
 * One statement: the row is written only when the customer (if any) exists at
 * this location, so a missing customer is not a foreign-key error to map.
 */
const INSERT_PAYMENT_INTENT = namedStatement(
  'insert_payment_intent',
  `insert into ${TABLE} (${INSERTED_COLUMNS.join(', ')}, created_at, updated_at)
   select ${INSERTED_COLUMNS.map((column) => `@${column}`).join(', ')}, now(), now()
   where @customer_id::uuid is null or exists (select 1 from customers where location_id = @location_id and id = @customer_id::uuid)
   returning ${COLUMNS.join(', ')}`,
);

/** Inserts the intent unless it names a customer this location does not have (then undefined). */
export async function insertPaymentIntent(db: Knex | Knex.Transaction, intent: NewPaymentIntent): Promise<PaymentIntentRecord | undefined> {
  const row: Record<(typeof INSERTED_COLUMNS)[number], Knex.RawBinding> = {
    location_id: intent.locationId,
    id: intent.id,
    external_reference_id: intent.externalReferenceId,
    customer_id: intent.customerId,
    amount: intent.amount,
    currency: intent.currency,
    capture_method: intent.captureMethod,
    status: intent.status,
    email: intent.email,
    tip: intent.tip,
    payment_method_configuration_id: intent.paymentMethodConfigurationId,
    standing_instruction_type: intent.standingInstructionType,
    off_session: intent.offSession,
    mandate_id: intent.mandateId,
    context_name: intent.contextName,
    partial_authorization: intent.partialAuthorization,
    session_secret: secretBox().seal(intent.sessionSecret, secretContext(TABLE, intent.locationId, intent.id)),
  };
  const [inserted] = await runNamed<PaymentIntentRow>(db, INSERT_PAYMENT_INTENT, row);
  return inserted === undefined ? undefined : toRecord(inserted);
}

const PAYMENT_INTENT = preparedStatement('payment_intent', `select ${COLUMNS.join(', ')} from ${TABLE} where location_id = ? and id = ?`);

export async function findPaymentIntent(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<PaymentIntentRecord | undefined> {
  const [row] = await runPrepared<PaymentIntentRow>(db, PAYMENT_INTENT, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

const PAYMENT_INTENT_FOR_UPDATE = preparedStatement('payment_intent_for_update', `${PAYMENT_INTENT.text} for update`);

/** The intent, locked until the transaction ends (a status move reads it first). */
export async function lockPaymentIntent(trx: Knex.Transaction, locationId: string, id: string): Promise<PaymentIntentRecord | undefined> {
  const [row] = await runPrepared<PaymentIntentRow>(trx, PAYMENT_INTENT_FOR_UPDATE, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/**
 * A move of an intent with its event, in one statement: every changeable
 * column is set only when the move changes it (`@set_<column>`), so one text
 * serves every move and is prepared once per connection. The guard is the
 * intent as the move read it: its status and its confirm attempt. The
 * event's object is the intent as read with the changes applied, except the
 * two fields an erasure may have cut since the read, taken from the moved row.
 */
const MOVE_INTENT = statementRecordingEvent('move_payment_intent', {
  write: `moved as (
     update ${TABLE}
        set ${Object.values(CHANGEABLE)
          .map((column) => `${column} = case when @set_${column}::boolean then @${column} else ${column} end`)
          .join(',\n            ')},
            updated_at = now()
      where location_id = @location_id and id = @id and status = @read_status and payment_attempts = @read_attempt
      returning ${COLUMNS.join(', ')}
   ),
   card_used as (
     update payment_methods set last_used_at = now()
      where @mark_card_used::boolean and location_id = @location_id and id = (select payment_method_id from moved)
   ),
   ${captureLineWrite('capture_line', 'moved', '@set_captured_at::boolean and moved.amount_captured > 0')}`,
  event: {
    source: 'moved',
    customerId: 'moved.customer_id',
    object: `@event_object::jsonb || jsonb_build_object('customerId', moved.customer_id, 'email', moved.email)`,
  },
  answer: `select ${COLUMNS.join(', ')} from moved`,
});

/**
 * Makes `changes` to the intent, with its event, if it is still in the status
 * and at the confirm attempt it was read with: of several requests or sweeps
 * racing for one move, exactly one makes it. Undefined for the others. With
 * `markCardUsed` (an approved authorization), the card the intent is paid
 * with gets its `last_used_at` in the same statement.
 */
export async function moveWithEvent(
  db: Knex,
  read: Pick<PaymentIntentRecord, 'locationId' | 'id' | 'status' | 'paymentAttempts'>,
  changes: IntentChanges,
  event: Omit<BoundEvent, 'object'> & { object: object },
  markCardUsed = false,
): Promise<PaymentIntentRecord | undefined> {
  const columns = columnsOf(changes);
  const values: Record<string, Knex.RawBinding> = {
    location_id: read.locationId,
    id: read.id,
    read_status: read.status,
    read_attempt: read.paymentAttempts,
    mark_card_used: markCardUsed,
    capture_line_id: uuidv7(),
  };
  for (const column of Object.values(CHANGEABLE)) {
    const set = column in columns;
    values[`set_${column}`] = set;
    values[column] = set ? (columns[column] as Knex.RawBinding) : null;
  }
  const [row] = await runRecording<PaymentIntentRow>(db, MOVE_INTENT, values, event);
  return row === undefined ? undefined : toRecord(row);
}

const SELECT_INTENTS = `select ${COLUMNS.join(', ')} from ${TABLE}`;

const DUE_AUTHORIZATIONS = sweepStatement(
  'payment_intents_due_authorizations',
  SELECT_INTENTS,
  "status = 'REQUIRES_CAPTURE' and capture_before <= now()",
  'capture_before',
);

/**
 * Authorizations whose capture window has ended, oldest first: across
 * locations (the sweep's), or at one location (its sandbox clock's rules).
 */
export async function dueAuthorizations(db: Knex, limit: number, locationId?: string): Promise<PaymentIntentRecord[]> {
  return (await runSweep<PaymentIntentRow>(db, DUE_AUTHORIZATIONS, [], limit, locationId)).map(toRecord);
}

const DUE_EXPIRIES = sweepStatement(
  'payment_intents_due_expiries',
  SELECT_INTENTS,
  "status in ('REQUIRES_PAYMENT_METHOD', 'REQUIRES_CONFIRMATION') and created_at <= now() - make_interval(hours => ?)",
  'created_at',
);

/** Unpaid intents made at least `expiryHours` ago, oldest first: across locations (the expiry sweep's), or at one location. */
export async function dueExpiries(db: Knex, expiryHours: number, limit: number, locationId?: string): Promise<PaymentIntentRecord[]> {
  return (await runSweep<PaymentIntentRow>(db, DUE_EXPIRIES, [expiryHours], limit, locationId)).map(toRecord);
}

const STUCK_IN_PROCESSING = sweepStatement(
  'payment_intents_stuck_in_processing',
  SELECT_INTENTS,
  "status = 'PROCESSING' and updated_at < now() - make_interval(secs => ?)",
  'updated_at',
);

/** Intents PROCESSING for longer than `olderThanSeconds`, across locations or at one: a process died while the processor was asked. */
export async function stuckInProcessing(db: Knex, olderThanSeconds: number, limit: number, locationId?: string): Promise<PaymentIntentRecord[]> {
  return (await runSweep<PaymentIntentRow>(db, STUCK_IN_PROCESSING, [olderThanSeconds], limit, locationId)).map(toRecord);
}

export interface PaymentIntentQuery extends PageQuery {
  customerId?: string;
  status?: PaymentIntentStatus;
  externalReferenceId?: string;
}

/** A page of the location's intents, newest first. */
export async function listPaymentIntents(
  db: Knex,
  locationId: string,
  query: PaymentIntentQuery,
): Promise<{ intents: PaymentIntentRecord[]; hasMore: boolean }> {
  const rows = db(TABLE)
    .select([...COLUMNS])
    .where('location_id', locationId);
  if (query.customerId !== undefined) rows.where('customer_id', query.customerId);
  if (query.status !== undefined) rows.where('status', query.status);
  if (query.externalReferenceId !== undefined) rows.where('external_reference_id', query.externalReferenceId);
  const page = await cursorPage<PaymentIntentRow>(rows, query, 'desc');
  return { intents: page.rows.map(toRecord), hasMore: page.hasMore };
}

const REMEMBER_FORMER_CUSTOMER = preparedStatement(
  'remember_former_intent_customer',
  'insert into former_intent_customers (location_id, customer_id, payment_intent_id) values (?, ?, ?) on conflict do nothing',
);

/** In the move that takes an intent away from a customer: the intent was theirs, and their erasure still covers it. */
export async function rememberFormerCustomer(trx: Knex.Transaction, locationId: string, customerId: string, intentId: string): Promise<void> {
  await runPrepared(trx, REMEMBER_FORMER_CUSTOMER, [locationId, customerId, intentId]);
}

/**
 * The customer's intents, now and before (former_intent_customers, forgotten
 * here), locked first so that each intent's status before the change is the
 * one it leaves (an event's `previous`). Each loses its e-mail; those that
 * are the customer's now lose the link too, and the unpaid ones among them
 * are canceled. An intent that is another customer's now keeps that link and
 * its status.
 */
const ERASE_INTENTS_OF_CUSTOMER = preparedStatement(
  'erase_intents_of_customer',
  `with former as (
     delete from former_intent_customers where location_id = ? and customer_id = ? returning payment_intent_id as id
   ),
   targets as (
     select id from ${TABLE} where location_id = ? and customer_id = ?
     union
     select id from former
   ),
   before as (
     select intent.id, intent.status, intent.customer_id = ? as theirs
       from ${TABLE} intent join targets on targets.id = intent.id
      where intent.location_id = ?
      for update of intent
   )
   update ${TABLE} intent
      set email = null, updated_at = now(),
          customer_id = case when before.theirs then null else intent.customer_id end,
          status = case when before.theirs and before.status = any(?::text[]) then 'CANCELED' else before.status end
     from before
    where intent.location_id = ? and intent.id = before.id
   returning ${COLUMNS.map((column) => `intent.${column}`).join(', ')}, before.status as previous_status`,
);

/**
 * For an erasure: every intent that is or ever was the customer's loses its
 * `email`, those that are theirs now lose the link to them, and those not yet
 * paid are canceled (an authorization is left to be captured, or voided by
 * the capture window). Answers every such intent's id, and each canceled
 * intent with the status it left.
 */
export async function eraseIntentsOfCustomer(
  trx: Knex.Transaction,
  locationId: string,
  customerId: string,
): Promise<{ intentIds: string[]; canceled: Array<{ intent: PaymentIntentRecord; previousStatus: PaymentIntentStatus }> }> {
  const rows = await runPrepared<PaymentIntentRow & { previous_status: PaymentIntentStatus }>(trx, ERASE_INTENTS_OF_CUSTOMER, [
    locationId,
    customerId,
    locationId,
    customerId,
    customerId,
    locationId,
    statusesMovedBy('erasure', 'CANCELED'),
    locationId,
  ]);
  return {
    intentIds: rows.map((row) => row.id),
    canceled: rows.filter((row) => row.status !== row.previous_status).map((row) => ({ intent: toRecord(row), previousStatus: row.previous_status })),
  };
}
