import type { Knex } from 'knex';
import { purgeInBatches } from '../platform/lifecycle/purge-in-batches';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';

/** Whose key it is: keys are scoped to the caller (issuer and client) and the location, so two callers never collide. */
export interface IdempotencyScope {
  issuer: string;
  clientId: string;
  locationId: string;
  key: string;
}

export interface StoredReply {
  status: number;
  body: unknown;
}

export type IdempotencyRecord = { state: 'in_progress'; fingerprint: string } | { state: 'completed'; fingerprint: string; reply: StoredReply };

interface IdempotencyRow {
  state: 'in_progress' | 'completed';
  fingerprint: string;
  response_status: number | null;
  response_body: unknown;
}

const CLAIM_IDEMPOTENCY_KEY = namedStatement(
  'claim_idempotency_key',
  `insert into idempotency_keys (location_id, issuer, client_id, key, fingerprint, claim_token, state, locked_at, expires_at)
   values (@locationId, @issuer, @clientId, @key, @fingerprint, @claimToken, 'in_progress', now(), now() + make_interval(secs => @ttlSeconds))
   on conflict (location_id, issuer, client_id, key) do update
     set fingerprint = excluded.fingerprint, claim_token = excluded.claim_token, state = 'in_progress',
         response_status = null, response_body = null, locked_at = now(), expires_at = excluded.expires_at
     where idempotency_keys.expires_at <= now()
        or (idempotency_keys.state = 'in_progress'
            and idempotency_keys.fingerprint = excluded.fingerprint
            and idempotency_keys.locked_at <= now() - make_interval(secs => @lockTimeoutSeconds))
   returning claim_token`,
);

/**
 * Claims the key for one attempt, committed at once so that a concurrent
 * attempt sees it. Takes over a row that has expired, or whose attempt (with
 * the same request) has held it past `lockTimeoutSeconds` without finishing,
 * e.g. because its process died. True when this attempt holds the claim.
 */
export async function claimIdempotencyKey(
  db: Knex,
  scope: IdempotencyScope,
  claim: { fingerprint: string; claimToken: string; ttlSeconds: number; lockTimeoutSeconds: number },
): Promise<boolean> {
  const [row] = await runNamed<{ claim_token: string }>(db, CLAIM_IDEMPOTENCY_KEY, { ...scope, ...claim });
  return row?.claim_token === claim.claimToken;
}

/** The key's row, matched on the whole scope (@locationId, @issuer, @clientId, @key). */
const SCOPE = 'location_id = @locationId and issuer = @issuer and client_id = @clientId and key = @key';

const FIND_IDEMPOTENCY_KEY = namedStatement(
  'find_idempotency_key',
  `select state, fingerprint, response_status, response_body from idempotency_keys where ${SCOPE} and expires_at > now()`,
);

export async function findIdempotencyKey(db: Knex, scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  const [row] = await runNamed<IdempotencyRow>(db, FIND_IDEMPOTENCY_KEY, { ...scope });
  if (row === undefined) return undefined;
  if (row.state === 'in_progress' || row.response_status === null) return { state: 'in_progress', fingerprint: row.fingerprint };
  return { state: 'completed', fingerprint: row.fingerprint, reply: { status: row.response_status, body: row.response_body } };
}

const COMPLETE_IDEMPOTENCY_KEY = namedStatement(
  'complete_idempotency_key',
  `update idempotency_keys set state = 'completed', response_status = @status, response_body = @body::jsonb
    where ${SCOPE} and claim_token = @claimToken and state = 'in_progress'
    returning key`,
);

/**
 * Records the answer, in the transaction that made the record it answers
 * with. False when the claim was lost (taken over after the lock timeout):
 * the caller must then roll back, or the request would take effect twice.
 */
export async function completeIdempotencyKey(trx: Knex.Transaction, scope: IdempotencyScope, claimToken: string, reply: StoredReply): Promise<boolean> {
  const values = { ...scope, claimToken, status: reply.status, body: JSON.stringify(reply.body) };
  return (await runNamed(trx, COMPLETE_IDEMPOTENCY_KEY, values)).length === 1;
}

// Counted from RETURNING: PGlite does not answer a count for a bare delete.
const RELEASE_IDEMPOTENCY_KEY = namedStatement(
  'release_idempotency_key',
  `delete from idempotency_keys where ${SCOPE} and claim_token = @claimToken and state = 'in_progress' returning 1`,
);

/**
 * Gives the key back after an attempt that stored nothing (refused input, a
 * fault), so that a retry runs afresh. Never touches a completed record: when
 * a commit's outcome is unknown, the record may well have been stored.
 */
export async function releaseIdempotencyKey(db: Knex, scope: IdempotencyScope, claimToken: string): Promise<number> {
  return (await runNamed(db, RELEASE_IDEMPOTENCY_KEY, { ...scope, claimToken })).length;
}

/** Expired keys a purge transaction deletes: a few milliseconds of row locks. */
export const IDEMPOTENCY_PURGE_BATCH = 1000;

/**
 * One batch of expired keys, the oldest first from the index by expiry,
 * skipping a row a request holds (it is taking the expired key over, and
 * neither should wait for the other). Planned on each run: a plan kept from
 * when the table was small could read it whole for every batch, as the
 * outbox's did (docs/decisions.md, The queues' statements). Counted from
 * RETURNING: PGlite does not answer a count for a bare delete.
 */
export const PURGE_EXPIRED_KEYS = preparedStatement(
  'purge_expired_idempotency_keys',
  `delete from idempotency_keys
    where ctid = any(array(
      select ctid from idempotency_keys where expires_at <= now() order by expires_at limit ? for update skip locked))
   returning 1`,
  { planEachRun: true },
);

/**
 * Deletes expired keys in batches (purgeInBatches); answers how many. Every
 * replica may run it at once: each takes rows the others have not locked.
 */
export async function purgeExpiredIdempotencyKeys(db: Knex, onBatch?: (purged: number, heldMs: number) => void): Promise<number> {
  return purgeInBatches(IDEMPOTENCY_PURGE_BATCH, async (limit) => (await runPrepared(db, PURGE_EXPIRED_KEYS, [limit])).length, onBatch);
}

const FORGET_ANSWERS_NAMING = preparedStatement(
  'forget_idempotent_answers_naming',
  `delete from idempotency_keys
    where location_id = ? and response_body is not null
      and response_body::text like any (?::text[])
   returning 1`,
);

/**
 * For an erasure: forgets the stored answers of this location that name any
 * of these ids (a customer's create, its intents'), which hold the personal
 * data the erasure removes. A retry with one of those keys then runs anew.
 */
export async function forgetAnswersNaming(trx: Knex.Transaction, locationId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await runPrepared(trx, FORGET_ANSWERS_NAMING, [locationId, ids.map((id) => `%${id}%`)]);
  return rows.length;
}
