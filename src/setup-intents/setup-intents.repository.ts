import type { Knex } from 'knex';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';
import { runSweep, sweepStatement } from '../platform/db/sweep-statement';
import { secretBox, secretContext } from '../platform/secrets/secret-box';
import { consentFromColumns, type ConsentRecord, type StandingInstructionType } from '../mandates';
import type { PaymentError } from '../payment-processor/payment-processor';
import type { SetupCancellationReason, SetupCard, SetupIntentChanges, SetupIntentRecord, SetupUsage } from './setup-intent-record';
import type { SetupIntentStatus } from './setup-intent-status';

interface SetupIntentRow {
  location_id: string;
  id: string;
  customer_id: string | null;
  usage: SetupUsage;
  standing_instruction_type: StandingInstructionType | null;
  context_name: string | null;
  max_amount: number | null;
  consent_accepted_at: Date | string | null;
  consent_text_version: string | null;
  consent_channel: ConsentRecord['channel'];
  consent_ip_address: string | null;
  consent_user_agent: string | null;
  session_secret: string;
  status: SetupIntentStatus;
  cancellation_reason: SetupCancellationReason | null;
  attempts: number;
  card: SetupCard | string | null;
  last_setup_error: PaymentError | string | null;
  processor_reference: string | null;
  payment_method_id: string | null;
  mandate_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const TABLE = 'setup_intents';
const COLUMNS = [
  'location_id',
  'id',
  'customer_id',
  'usage',
  'standing_instruction_type',
  'context_name',
  'max_amount',
  'consent_accepted_at',
  'consent_text_version',
  'consent_channel',
  'consent_ip_address',
  'consent_user_agent',
  'session_secret',
  'status',
  'cancellation_reason',
  'attempts',
  'card',
  'last_setup_error',
  'processor_reference',
  'payment_method_id',
  'mandate_id',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof SetupIntentRow>;

const json = <T>(value: T | string | null): T | null => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

function toRecord(row: SetupIntentRow): SetupIntentRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    customerId: row.customer_id,
    usage: row.usage,
    mandateTerms:
      row.standing_instruction_type === null || row.consent_accepted_at === null || row.consent_text_version === null
        ? null
        : {
            standingInstructionType: row.standing_instruction_type,
            contextName: row.context_name,
            maxAmount: row.max_amount,
            consent: consentFromColumns({ ...row, consent_accepted_at: row.consent_accepted_at, consent_text_version: row.consent_text_version }),
          },
    sessionSecret: secretBox().open(row.session_secret, secretContext(TABLE, row.location_id, row.id)),
    status: row.status,
    cancellationReason: row.cancellation_reason,
    attempts: row.attempts,
    card: json(row.card),
    lastSetupError: json(row.last_setup_error),
    processorReference: row.processor_reference,
    paymentMethodId: row.payment_method_id,
    mandateId: row.mandate_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * A new setup intent, inserted only for a customer of the location (the
 * insert selects from the customer's row): undefined for any other.
 */
const INSERT_SETUP_INTENT = namedStatement(
  'insert_setup_intent',
  `insert into ${TABLE} (location_id, id, customer_id, usage, standing_instruction_type, context_name, max_amount,
                         consent_accepted_at, consent_text_version, consent_channel, consent_ip_address, consent_user_agent,
                         session_secret, status, created_at, updated_at)
   select c.location_id, @id, c.id, @usage, @standing_instruction_type, @context_name, @max_amount::integer,
          @consent_accepted_at::timestamptz, @consent_text_version, @consent_channel, @consent_ip_address, @consent_user_agent,
          @session_secret, 'REQUIRES_PAYMENT_METHOD', now(), now()
     from customers c
    where c.location_id = @location_id and c.id = @customer_id
   returning ${COLUMNS.join(', ')}`,
);

export type NewSetupIntent = Pick<SetupIntentRecord, 'locationId' | 'id' | 'usage' | 'mandateTerms' | 'sessionSecret'> & { customerId: string };

export async function insertSetupIntent(db: Knex | Knex.Transaction, intent: NewSetupIntent): Promise<SetupIntentRecord | undefined> {
  const terms = intent.mandateTerms;
  const [row] = await runNamed<SetupIntentRow>(db, INSERT_SETUP_INTENT, {
    location_id: intent.locationId,
    id: intent.id,
    customer_id: intent.customerId,
    usage: intent.usage,
    standing_instruction_type: terms?.standingInstructionType ?? null,
    context_name: terms?.contextName ?? null,
    max_amount: terms?.maxAmount ?? null,
    consent_accepted_at: terms?.consent.acceptedAt ?? null,
    consent_text_version: terms?.consent.textVersion ?? null,
    consent_channel: terms?.consent.channel ?? null,
    consent_ip_address: terms?.consent.ipAddress ?? null,
    consent_user_agent: terms?.consent.userAgent ?? null,
    session_secret: secretBox().seal(intent.sessionSecret, secretContext(TABLE, intent.locationId, intent.id)),
  });
  return row === undefined ? undefined : toRecord(row);
}

const SETUP_INTENT = preparedStatement('setup_intent', `select ${COLUMNS.join(', ')} from ${TABLE} where location_id = ? and id = ?`);
const SETUP_INTENT_FOR_UPDATE = preparedStatement('setup_intent_for_update', `${SETUP_INTENT.text} for update`);

export async function findSetupIntent(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<SetupIntentRecord | undefined> {
  const [row] = await runPrepared<SetupIntentRow>(db, SETUP_INTENT, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/** The setup intent, locked until the transaction ends: every move of one is made under this lock. */
export async function lockSetupIntent(trx: Knex.Transaction, locationId: string, id: string): Promise<SetupIntentRecord | undefined> {
  const [row] = await runPrepared<SetupIntentRow>(trx, SETUP_INTENT_FOR_UPDATE, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/** Writes `changes` to the setup intent the caller holds locked, and answers it as it now stands. */
export async function saveSetupIntent(trx: Knex.Transaction, intent: SetupIntentRecord, changes: SetupIntentChanges, now: Date): Promise<SetupIntentRecord> {
  const columns: Record<string, unknown> = { updated_at: now };
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.cancellationReason !== undefined) columns.cancellation_reason = changes.cancellationReason;
  if (changes.attempts !== undefined) columns.attempts = changes.attempts;
  if (changes.card !== undefined) columns.card = changes.card === null ? null : JSON.stringify(changes.card);
  if (changes.lastSetupError !== undefined) columns.last_setup_error = changes.lastSetupError === null ? null : JSON.stringify(changes.lastSetupError);
  if (changes.processorReference !== undefined) columns.processor_reference = changes.processorReference;
  if (changes.paymentMethodId !== undefined) columns.payment_method_id = changes.paymentMethodId;
  if (changes.mandateId !== undefined) columns.mandate_id = changes.mandateId;
  await trx(TABLE).where({ location_id: intent.locationId, id: intent.id }).update(columns);
  return { ...intent, ...changes, updatedAt: now };
}

/** A page of the customer's setup intents, newest first. */
export async function listSetupIntents(
  db: Knex,
  locationId: string,
  filters: { customerId?: string; status?: SetupIntentStatus },
  page: PageQuery,
): Promise<{ intents: SetupIntentRecord[]; hasMore: boolean }> {
  const rows = db(TABLE)
    .select([...COLUMNS])
    .where({ location_id: locationId });
  if (filters.customerId !== undefined) rows.andWhere('customer_id', filters.customerId);
  if (filters.status !== undefined) rows.andWhere('status', filters.status);
  const found = await cursorPage<SetupIntentRow>(rows, page, 'desc');
  return { intents: found.rows.map(toRecord), hasMore: found.hasMore };
}

const SELECT = `select ${COLUMNS.join(', ')} from ${TABLE}`;
const DUE_EXPIRIES = sweepStatement(
  'setup_intents_due_expiries',
  SELECT,
  "status = 'REQUIRES_PAYMENT_METHOD' and created_at <= now() - make_interval(mins => ?)",
  'created_at',
);
const STUCK_IN_PROCESSING = sweepStatement(
  'setup_intents_stuck_in_processing',
  SELECT,
  "status = 'PROCESSING' and updated_at < now() - make_interval(secs => ?)",
  'updated_at',
);

/** Unfinished setup intents made at least `minutes` ago, oldest first: across locations, or at one. */
export async function dueSetupExpiries(db: Knex, minutes: number, limit: number, locationId?: string): Promise<SetupIntentRecord[]> {
  return (await runSweep<SetupIntentRow>(db, DUE_EXPIRIES, [minutes], limit, locationId)).map(toRecord);
}

/** Setup intents PROCESSING for longer than `olderThanSeconds` (their process died while the processor was asked). */
export async function setupsStuckInProcessing(db: Knex, olderThanSeconds: number, limit: number, locationId?: string): Promise<SetupIntentRecord[]> {
  return (await runSweep<SetupIntentRow>(db, STUCK_IN_PROCESSING, [olderThanSeconds], limit, locationId)).map(toRecord);
}

/**
 * For an erasure, in its transaction: every setup intent of the customer
 * loses the link to them and the personal fields of its consent, and the
 * unfinished ones are canceled. Answers each intent as it now is, with the
 * status it had.
 */
const ERASE_SETUP_INTENTS_OF_CUSTOMER = preparedStatement(
  'erase_setup_intents_of_customer',
  `with before as (
     select id, status from ${TABLE} where location_id = ? and customer_id = ? for update
   )
   update ${TABLE} intent
      set customer_id = null, consent_ip_address = null, consent_user_agent = null, updated_at = now(),
          status = case when before.status = any(?::text[]) then 'CANCELED' else before.status end
     from before
    where intent.location_id = ? and intent.id = before.id
   returning ${COLUMNS.map((column) => `intent.${column}`).join(', ')}, before.status as previous_status`,
);

export async function eraseSetupIntentsOfCustomer(
  trx: Knex.Transaction,
  locationId: string,
  customerId: string,
  cancelFrom: readonly SetupIntentStatus[],
): Promise<Array<{ intent: SetupIntentRecord; previousStatus: SetupIntentStatus }>> {
  const rows = await runPrepared<SetupIntentRow & { previous_status: SetupIntentStatus }>(trx, ERASE_SETUP_INTENTS_OF_CUSTOMER, [
    locationId,
    customerId,
    cancelFrom,
    locationId,
  ]);
  return rows.map((row) => ({ intent: toRecord(row), previousStatus: row.previous_status }));
}
