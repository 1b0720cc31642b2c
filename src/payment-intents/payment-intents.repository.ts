import type { Knex } from 'knex';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import { statusesLeadingTo, type PaymentIntentStatus } from './payment-intent-status';

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
  standingInstructionType: 'INSTALLMENT' | 'RECURRING' | 'UNSCHEDULED' | null;
  offSession: boolean;
  mandateId: string | null;
  sessionSecret: string;
  createdAt: Date;
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
  session_secret: string;
  created_at: Date | string;
}

const TABLE = 'payment_intents';

/** The columns a record is read from, named rather than `*`: a column added later is not read until the record needs it. */
const COLUMNS = [
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
  'session_secret',
  'created_at',
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
    sessionSecret: row.session_secret,
    createdAt: new Date(row.created_at),
  };
}

export type NewPaymentIntent = Omit<PaymentIntentRecord, 'createdAt'>;

/** Inserts the intent unless it names a customer this location does not have (then undefined). */
export async function insertPaymentIntent(db: Knex | Knex.Transaction, intent: NewPaymentIntent): Promise<PaymentIntentRecord | undefined> {
  const row = {
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
    session_secret: intent.sessionSecret,
  };
  // One statement: the row is written only when the customer (if any) exists at
  // this location, so a missing customer is not a foreign-key error to map.
  const columns = Object.keys(row);
  const result = await db.raw<{ rows: PaymentIntentRow[] }>(
    `insert into ${TABLE} (${columns.map(() => '??').join(', ')})
     select ${columns.map(() => '?').join(', ')}
     where ?::uuid is null or exists (select 1 from customers where location_id = ? and id = ?::uuid)
     returning ${COLUMNS.join(', ')}`,
    [...columns, ...Object.values(row), intent.customerId, intent.locationId, intent.customerId],
  );
  const inserted = result.rows[0];
  return inserted === undefined ? undefined : toRecord(inserted);
}

const PAYMENT_INTENT = preparedStatement('payment_intent', `select ${COLUMNS.join(', ')} from ${TABLE} where location_id = ? and id = ?`);

export async function findPaymentIntent(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<PaymentIntentRecord | undefined> {
  const [row] = await runPrepared<PaymentIntentRow>(db, PAYMENT_INTENT, [locationId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/** The intent, locked until the transaction ends (a status move reads it first). */
export async function lockPaymentIntent(trx: Knex.Transaction, locationId: string, id: string): Promise<PaymentIntentRecord | undefined> {
  const row = (await trx(TABLE).select([...COLUMNS]).where({ location_id: locationId, id }).forUpdate().first()) as PaymentIntentRow | undefined;
  return row === undefined ? undefined : toRecord(row);
}

/** Moves the intent to `to` if its status is one of `from`; undefined when it is not (or does not exist). */
export async function updatePaymentIntentStatus(
  db: Knex | Knex.Transaction,
  locationId: string,
  id: string,
  from: readonly PaymentIntentStatus[],
  to: PaymentIntentStatus,
): Promise<PaymentIntentRecord | undefined> {
  const [row] = (await db(TABLE)
    .where({ location_id: locationId, id })
    .whereIn('status', from)
    .update({ status: to, updated_at: db.fn.now() })
    .returning([...COLUMNS])) as PaymentIntentRow[];
  return row === undefined ? undefined : toRecord(row);
}

/**
 * For an erasure: every intent of the customer loses its `email` and its
 * link to the customer, and those that can still move to CANCELED are
 * canceled. Answers each canceled intent with the status it left.
 */
export async function detachAndCancelIntentsOfCustomer(
  trx: Knex.Transaction,
  locationId: string,
  customerId: string,
): Promise<{ intentIds: string[]; canceled: Array<{ intent: PaymentIntentRecord; previousStatus: PaymentIntentStatus }> }> {
  const movable = statusesLeadingTo('CANCELED');
  const before = (await trx(TABLE).select('id', 'status').where({ location_id: locationId, customer_id: customerId }).forUpdate()) as Array<{
    id: string;
    status: PaymentIntentStatus;
  }>;
  if (before.length === 0) return { intentIds: [], canceled: [] };
  const ids = before.map(({ id }) => id);
  await trx(TABLE).where({ location_id: locationId }).whereIn('id', ids).update({ email: null, customer_id: null, updated_at: trx.fn.now() });
  const rows = (await trx(TABLE)
    .where({ location_id: locationId })
    .whereIn('id', ids)
    .whereIn('status', movable)
    .update({ status: 'CANCELED', updated_at: trx.fn.now() })
    .returning([...COLUMNS])) as PaymentIntentRow[];
  const statusOf = new Map(before.map(({ id, status }) => [id, status]));
  return { intentIds: ids, canceled: rows.map((row) => ({ intent: toRecord(row), previousStatus: statusOf.get(row.id) as PaymentIntentStatus })) };
}
