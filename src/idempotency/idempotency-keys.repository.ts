import type { Knex } from 'knex';
import { namedStatement, preparedStatement, runNamed, runPrepared, textArrayLiteral } from '../platform/db/prepared-statement';

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

function scopeColumns(scope: IdempotencyScope): Record<string, string> {
  return { location_id: scope.locationId, issuer: scope.issuer, client_id: scope.clientId, key: scope.key };
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

export async function findIdempotencyKey(db: Knex, scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  const row = (await db('idempotency_keys')
    .select('state', 'fingerprint', 'response_status', 'response_body')
    .where(scopeColumns(scope))
    .where('expires_at', '>', db.fn.now())
    .first()) as IdempotencyRow | undefined;
  if (row === undefined) return undefined;
  if (row.state === 'in_progress' || row.response_status === null) return { state: 'in_progress', fingerprint: row.fingerprint };
  return { state: 'completed', fingerprint: row.fingerprint, reply: { status: row.response_status, body: row.response_body } };
}

/**
 * Records the answer, in the transaction that made the record it answers
 * with. False when the claim was lost (taken over after the lock timeout):
 * the caller must then roll back, or the request would take effect twice.
 */
export async function completeIdempotencyKey(trx: Knex.Transaction, scope: IdempotencyScope, claimToken: string, reply: StoredReply): Promise<boolean> {
  const updated = await trx('idempotency_keys')
    .where({ ...scopeColumns(scope), claim_token: claimToken, state: 'in_progress' })
    .update({ state: 'completed', response_status: reply.status, response_body: JSON.stringify(reply.body) })
    .returning('key');
  return updated.length === 1;
}

/**
 * Gives the key back after an attempt that stored nothing (refused input, a
 * fault), so that a retry runs afresh. Never touches a completed record: when
 * a commit's outcome is unknown, the record may well have been stored.
 */
export async function releaseIdempotencyKey(db: Knex, scope: IdempotencyScope, claimToken: string): Promise<number> {
  // Counted from `returning`: PGlite's Knex driver does not answer a count for a bare delete.
  const released = await db('idempotency_keys')
    .where({ ...scopeColumns(scope), claim_token: claimToken, state: 'in_progress' })
    .delete()
    .returning('key');
  return released.length;
}

/** Deletes expired keys; answers how many. */
export async function purgeExpiredIdempotencyKeys(db: Knex): Promise<number> {
  // Counted from `returning`: PGlite's Knex driver does not answer a count for a bare delete.
  const purged = await db('idempotency_keys').where('expires_at', '<=', db.fn.now()).delete().returning('key');
  return purged.length;
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
  const rows = await runPrepared(trx, FORGET_ANSWERS_NAMING, [locationId, textArrayLiteral(ids.map((id) => `%${id}%`))]);
  return rows.length;
}
