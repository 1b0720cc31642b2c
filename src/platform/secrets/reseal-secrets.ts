import type { Knex } from 'knex';
import { secretContext, type SecretBox } from './secret-box';

/** The columns that hold a sealed secret, by table; each row is bound by its location and id. */
const SEALED_COLUMNS = {
  webhook_endpoints: ['secret', 'previous_secret'],
  payment_intents: ['session_secret'],
  setup_intents: ['session_secret'],
} as const;

/**
 * Re-seals, under the keyring's current key, every secret sealed under
 * another key or stored in clear (rows from before encryption), a batch at a
 * time: each batch is one short transaction over rows locked with SKIP
 * LOCKED, so requests go on meanwhile (no downtime) and two runs never
 * touch one row. The keyring must still hold the keys being retired.
 * Answers how many values were re-sealed, by table.
 */
export async function resealSecrets(db: Knex, box: SecretBox, batchSize = 500): Promise<Record<string, number>> {
  const current = `enc1:${box.currentKeyId}:%`;
  const counts: Record<string, number> = {};
  for (const [table, columns] of Object.entries(SEALED_COLUMNS) as Array<[keyof typeof SEALED_COLUMNS, readonly string[]]>) {
    let resealedInTable = 0;
    for (;;) {
      const resealed = await db.transaction(async (trx) => {
        const stale = trx(table)
          .select('location_id', 'id', ...columns)
          .where((where) => {
            for (const column of columns) where.orWhere((one) => one.whereNotNull(column).whereNot(column, 'like', current));
          })
          .limit(batchSize)
          .forUpdate()
          .skipLocked();
        const rows = (await stale) as Array<Record<string, string | null>>;
        for (const row of rows) {
          const context = secretContext(table, row.location_id as string, row.id as string);
          const changes: Record<string, string> = {};
          for (const column of columns) {
            const value = row[column];
            if (value !== null && value !== undefined && !box.isCurrent(value)) changes[column] = box.seal(box.open(value, context), context);
          }
          await trx(table).where({ location_id: row.location_id, id: row.id }).update(changes);
          resealedInTable += Object.keys(changes).length;
        }
        return rows.length;
      });
      if (resealed < batchSize) break;
    }
    counts[table] = resealedInTable;
  }
  return counts;
}
