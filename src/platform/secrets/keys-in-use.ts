import os from 'node:os';
import type { Knex } from 'knex';
import { ConfigError } from '../config';
import { preparedStatement, runPrepared } from '../db/prepared-statement';
import type { SecretBox } from './secret-box';

/**
 * Which keys of the secrets keyring the database's secrets are, or may be,
 * sealed under (table secret_keys_in_use). A process registers its current
 * key before it seals anything, and refuses to start when its keyring lacks
 * a key registered before it, or holds another key under the same id: a
 * replica rolled out with the wrong keyring file, or a second development
 * process with a development keyring of its own, would otherwise answer 500
 * on every read of what the other sealed (docs/deployment.md, Secrets at
 * rest). Readiness asks again on every probe, so a replica running when
 * another registered a key it lacks is taken out of the load balancer.
 */
// Share row exclusive conflicts with itself: two processes starting at once register one after the other.
const LOCK_KEYS_IN_USE = preparedStatement('lock_secret_keys_in_use', 'lock table secret_keys_in_use in share row exclusive mode');

interface KeyInUse {
  key_id: string;
  key_check: string | null;
  source: string;
}

/** The keys registered that `box` cannot open, each with the keyring that registered it; empty when it holds them all. */
function keysLacking(box: SecretBox, registered: readonly KeyInUse[]): KeyInUse[] {
  return registered.filter((key) => {
    const check = box.keyCheck(key.key_id);
    return check === undefined || (key.key_check !== null && key.key_check !== check);
  });
}

/** What an operator reads when the keyring lacks keys in use: which, who registered them, and the fix. */
export function keyringLacksMessage(box: SecretBox, lacking: readonly KeyInUse[]): string {
  const named = lacking
    .map((key) => `${key.key_id} (${box.keyCheck(key.key_id) === undefined ? 'missing' : 'another key under that id'}; registered by ${key.source})`)
    .join(', ');
  return (
    `${box.origin} lacks key${lacking.length > 1 ? 's' : ''} that secrets in this database are sealed under: ${named}. ` +
    'Give every process on this database the same keyring: set SECRETS_ENCRYPTION_KEY_FILE to the keyring file that holds ' +
    `${lacking.length > 1 ? 'them' : 'it'} (for development processes, the other's DATA_DIR/dev-secrets-keyring.json, or share one DATA_DIR). ` +
    'A retired key leaves this list only through `npm run secrets:rotate` (docs/deployment.md, Secrets at rest).'
  );
}

/**
 * Checks `box` against the keys in use and registers its current key, under
 * a lock so that two processes starting at once see each other's key: the
 * second with another keyring refuses. Throws a ConfigError naming the
 * setting and the missing ids.
 */
export async function registerKeyring(db: Knex, box: SecretBox): Promise<void> {
  await db.transaction(async (trx) => {
    await runPrepared(trx, LOCK_KEYS_IN_USE, []);
    const registered = (await trx('secret_keys_in_use').select('key_id', 'key_check', 'source')) as KeyInUse[];
    const lacking = keysLacking(box, registered);
    if (lacking.length > 0) throw new ConfigError(keyringLacksMessage(box, lacking));
    const current = box.currentKeyId;
    const check = box.keyCheck(current) as string;
    const mine = registered.find((key) => key.key_id === current);
    if (mine === undefined) {
      await trx('secret_keys_in_use').insert({ key_id: current, key_check: check, source: `${box.origin} on host ${os.hostname()}` });
    } else if (mine.key_check === null) {
      // Found sealed in rows before this table existed: this keyring opens it, so its check is now known.
      await trx('secret_keys_in_use').where({ key_id: current }).update({ key_check: check });
    }
  });
}

/** Why `box` cannot serve this database now (a key registered since it started that it lacks), or undefined. */
export async function keyringProblem(db: Knex, box: SecretBox): Promise<string | undefined> {
  const registered = (await db('secret_keys_in_use').select('key_id', 'key_check', 'source')) as KeyInUse[];
  const lacking = keysLacking(box, registered);
  return lacking.length === 0 ? undefined : keyringLacksMessage(box, lacking);
}

/** After a re-seal left no secret under any other key: only the current key stays registered. */
export async function forgetRetiredKeys(db: Knex, box: SecretBox): Promise<string[]> {
  const rows = (await db('secret_keys_in_use').whereNot('key_id', box.currentKeyId).delete().returning('key_id')) as Array<{ key_id: string }>;
  return rows.map((row) => row.key_id);
}
