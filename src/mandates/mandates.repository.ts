import type { Knex } from 'knex';
import { runRecording, statementRecordingEvent } from '../change-log/record-events';
import type { WriteContext } from '../change-log/write-context';
import { cursorPage, type PageQuery } from '../platform/db/cursor-page';
import { isInTransaction } from '../platform/db/in-transaction';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import {
  consentFromColumns,
  type ConsentChannel,
  type MandateCard,
  type MandateRecord,
  type MandateStatus,
  type StandingInstructionType,
} from './mandate-record';
import { toMandate } from './mandates.schemas';

export type { MandateRecord } from './mandate-record';

interface MandateRow {
  location_id: string;
  id: string;
  customer_id: string;
  payment_method_id: string;
  context_name: string | null;
  standing_instruction_type: StandingInstructionType;
  status: MandateStatus;
  max_amount: number | null;
  consent_accepted_at: Date | string;
  consent_text_version: string;
  consent_channel: ConsentChannel | null;
  consent_ip_address: string | null;
  consent_user_agent: string | null;
  card: MandateCard | null;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const COLUMNS = [
  'location_id',
  'id',
  'customer_id',
  'payment_method_id',
  'context_name',
  'standing_instruction_type',
  'status',
  'max_amount',
  'consent_accepted_at',
  'consent_text_version',
  'consent_channel',
  'consent_ip_address',
  'consent_user_agent',
  'card',
  'created_at',
  'revoked_at',
] as const satisfies ReadonlyArray<keyof MandateRow>;

function toRecord(row: MandateRow): MandateRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    contextName: row.context_name,
    standingInstructionType: row.standing_instruction_type,
    status: row.status,
    maxAmount: row.max_amount,
    consent: consentFromColumns(row),
    card: row.card,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  };
}

/**
 * A mandate made ACTIVE with its `mandate.created` event, in one statement:
 * it is inserted only from the customer's own card (read from the cards'
 * table, whose row it copies what a charge needs of), so another customer's
 * card or a missing one inserts nothing.
 */
const CREATE_MANDATE = statementRecordingEvent('create_mandate', {
  write: `made as (
     insert into mandates (location_id, id, customer_id, payment_method_id, context_name, standing_instruction_type, status, max_amount,
                           consent_accepted_at, consent_text_version, consent_channel, consent_ip_address, consent_user_agent, card, created_at, updated_at)
     select pm.location_id, @id, pm.customer_id, pm.id, @context_name, @standing_instruction_type, 'ACTIVE', @max_amount::integer,
            @consent_accepted_at, @consent_text_version, @consent_channel, @consent_ip_address, @consent_user_agent,
            jsonb_build_object('brand', pm.card_brand, 'lastFour', pm.last_four, 'expMonth', pm.exp_month, 'expYear', pm.exp_year),
            @created_at, @created_at
       from payment_methods pm
      where pm.location_id = @location_id and pm.customer_id = @customer_id and pm.id = @payment_method_id
     returning ${COLUMNS.join(', ')}
   )`,
  event: { source: 'made', customerId: 'made.customer_id' },
  answer: `select ${COLUMNS.join(', ')} from made`,
});

export type NewMandate = Omit<MandateRecord, 'locationId' | 'status' | 'card' | 'createdAt' | 'revokedAt'>;

/** Makes the mandate, with its event; undefined when the customer has no such card. */
export async function createMandate(write: WriteContext, mandate: NewMandate, createdAt: Date): Promise<MandateRecord | undefined> {
  const object = toMandate({ ...mandate, locationId: write.locationId, status: 'ACTIVE', card: null, createdAt, revokedAt: null });
  const [row] = await runRecording<MandateRow>(
    write.db,
    CREATE_MANDATE,
    {
      location_id: write.locationId,
      id: mandate.id,
      customer_id: mandate.customerId,
      payment_method_id: mandate.paymentMethodId,
      context_name: mandate.contextName,
      standing_instruction_type: mandate.standingInstructionType,
      max_amount: mandate.maxAmount,
      consent_accepted_at: mandate.consent.acceptedAt,
      consent_text_version: mandate.consent.textVersion,
      consent_channel: mandate.consent.channel,
      consent_ip_address: mandate.consent.ipAddress,
      consent_user_agent: mandate.consent.userAgent,
      created_at: createdAt,
    },
    { origin: write.origin, type: 'mandate.created', object, previous: null },
  );
  return row === undefined ? undefined : toRecord(row);
}

/**
 * An ACTIVE mandate made INACTIVE, with its `mandate.revoked` event, in one
 * statement; the card it kept is forgotten (a removed card then goes for
 * good). Nothing when it was not ACTIVE: of two revocations, one records.
 */
const REVOKE_MANDATE = statementRecordingEvent('revoke_mandate', {
  write: `revoked as (
     update mandates set status = 'INACTIVE', card = null, revoked_at = @revoked_at, updated_at = @revoked_at
      where location_id = @location_id and customer_id = @customer_id and id = @id and status = 'ACTIVE'
      returning ${COLUMNS.join(', ')}
   )`,
  event: { source: 'revoked', customerId: 'revoked.customer_id' },
  answer: `select ${COLUMNS.join(', ')} from revoked`,
});

export async function revokeMandate(write: WriteContext, mandate: MandateRecord, revokedAt: Date): Promise<MandateRecord | undefined> {
  const object = toMandate({ ...mandate, status: 'INACTIVE', card: null, revokedAt });
  const [row] = await runRecording<MandateRow>(
    write.db,
    REVOKE_MANDATE,
    { location_id: write.locationId, customer_id: mandate.customerId, id: mandate.id, revoked_at: revokedAt },
    { origin: write.origin, type: 'mandate.revoked', object, previous: { status: 'ACTIVE', revokedAt: null } },
  );
  return row === undefined ? undefined : toRecord(row);
}

// Of a customer that exists: an erased customer's mandates stay, revoked, as records, but are read through no one
// (docs/cards-on-file.md, After an erasure). Only the mandate is locked, never the customer: an erasure locks the
// customer and then revokes its mandates, and a lock of both here could meet it in the other order.
const MANDATE_OF_CUSTOMER = preparedStatement(
  'mandate_of_customer',
  `select ${COLUMNS.join(', ')} from mandates m
    where location_id = ? and customer_id = ? and id = ?
      and exists (select from customers c where c.location_id = m.location_id and c.id = m.customer_id)`,
);

const MANDATE_OF_CUSTOMER_FOR_SHARE = preparedStatement('mandate_of_customer_for_share', `${MANDATE_OF_CUSTOMER.text} for share of m`);

/**
 * The customer's mandate (none of an erased customer); in a transaction, locked against a revocation
 * until it ends: a charge decided under an ACTIVE mandate is committed
 * before a racing revocation is, never after it.
 */
export async function findMandate(db: Knex, locationId: string, customerId: string, id: string): Promise<MandateRecord | undefined> {
  const statement = isInTransaction(db) ? MANDATE_OF_CUSTOMER_FOR_SHARE : MANDATE_OF_CUSTOMER;
  const [row] = await runPrepared<MandateRow>(db, statement, [locationId, customerId, id]);
  return row === undefined ? undefined : toRecord(row);
}

/** A page of the customer's mandates, newest first. */
export async function listMandates(
  db: Knex,
  locationId: string,
  customerId: string,
  page: PageQuery,
): Promise<{ mandates: MandateRecord[]; hasMore: boolean }> {
  const rows = db('mandates')
    .select([...COLUMNS])
    .where({ location_id: locationId, customer_id: customerId });
  const found = await cursorPage<MandateRow>(rows, page, 'desc');
  return { mandates: found.rows.map(toRecord), hasMore: found.hasMore };
}

const ACTIVE_MANDATES_OF_CUSTOMER = preparedStatement(
  'active_mandates_of_customer',
  `select ${COLUMNS.join(', ')} from mandates where location_id = ? and customer_id = ? and status = 'ACTIVE' order by id`,
);

/** The customer's ACTIVE mandates (an erasure revokes each). */
export async function activeMandatesOfCustomer(db: Knex, locationId: string, customerId: string): Promise<MandateRecord[]> {
  return (await runPrepared<MandateRow>(db, ACTIVE_MANDATES_OF_CUSTOMER, [locationId, customerId])).map(toRecord);
}

/**
 * What an erasure leaves of the customer's mandates: each INACTIVE, with no
 * personal field of its consent (IP address, user agent) and no card. Run
 * after their revocations, in the erasure's transaction.
 */
const FORGET_CONSENTS = preparedStatement(
  'forget_mandate_consents',
  `update mandates set consent_ip_address = null, consent_user_agent = null, card = null, updated_at = now()
    where location_id = ? and customer_id = ? and (consent_ip_address is not null or consent_user_agent is not null or card is not null)
    returning id`,
);

export async function forgetConsentsOfCustomer(trx: Knex.Transaction, locationId: string, customerId: string): Promise<number> {
  return (await runPrepared(trx, FORGET_CONSENTS, [locationId, customerId])).length;
}
