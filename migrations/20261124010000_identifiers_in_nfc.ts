import type { Knex } from 'knex';

/**
 * Names are now read in Unicode NFC and refused when they hold a format
 * character (category Cf), so names stored before are brought to the same
 * form: NFC, with format characters removed. Where two stored names become
 * one, the most recently updated row keeps the name:
 *
 * - default_payment_methods.context_name: the other defaults of that group
 *   are deleted (the customer's default for the context is the one set last;
 *   no card is touched);
 * - payment_methods.fingerprint: the other cards keep everything but their
 *   fingerprint, which becomes null (no card is lost; a later save of the
 *   same card updates the one that kept it);
 * - customers and payment intents: external_reference_id and mandate_id
 *   carry no uniqueness, so they are simply rewritten.
 *
 * A name made only of format characters would become empty: it is left as it
 * is (the API refuses to read it, so it is unreachable either way). Not
 * reversible: down() does nothing.
 */

/** Every Cf code point as a PostgreSQL bracket expression, from JavaScript's own Unicode tables. */
function formatCharacterClass(): string {
  const escape = (codePoint: number): string =>
    codePoint > 0xffff ? `\\U${codePoint.toString(16).padStart(8, '0')}` : `\\u${codePoint.toString(16).padStart(4, '0')}`;
  const parts: string[] = [];
  let start = -1;
  for (let codePoint = 0; codePoint <= 0x110000; codePoint += 1) {
    const isFormat = codePoint < 0x110000 && /\p{Cf}/u.test(String.fromCodePoint(codePoint));
    if (isFormat && start < 0) start = codePoint;
    if (!isFormat && start >= 0) {
      parts.push(start === codePoint - 1 ? escape(start) : `${escape(start)}-${escape(codePoint - 1)}`);
      start = -1;
    }
  }
  return `[${parts.join('')}]`;
}

export async function up(knex: Knex): Promise<void> {
  const formatCharacters = formatCharacterClass();
  const clean = (column: string): string => `regexp_replace(normalize(${column}, NFC), '${formatCharacters}', '', 'g')`;

  for (const [table, column] of [
    ['customers', 'external_reference_id'],
    ['payment_intents', 'external_reference_id'],
    ['payment_intents', 'mandate_id'],
  ] as const) {
    await knex.raw(`update ${table} set ${column} = ${clean(column)} where ${column} <> ${clean(column)} and ${clean(column)} <> ''`);
  }

  await knex.raw(`
    with ranked as (
      select location_id, customer_id, context_name, ${clean('context_name')} as clean,
             row_number() over (partition by location_id, customer_id, ${clean('context_name')}
                                order by updated_at desc, context_name desc) as rank
        from default_payment_methods)
    delete from default_payment_methods d using ranked r
     where d.location_id = r.location_id and d.customer_id = r.customer_id and d.context_name = r.context_name
       and r.rank > 1 and r.clean <> ''`);
  await knex.raw(`
    update default_payment_methods set context_name = ${clean('context_name')}
     where context_name <> ${clean('context_name')} and ${clean('context_name')} <> ''`);

  // Two statements: a unique index is checked row by row, so the fingerprints
  // that give way are cleared before the one that keeps it is rewritten.
  const rankedCards = `
    select location_id, id, ${clean('fingerprint')} as clean,
           row_number() over (partition by location_id, customer_id, ${clean('fingerprint')}
                              order by updated_at desc, id desc) as rank
      from payment_methods where fingerprint is not null`;
  await knex.raw(`
    with ranked as (${rankedCards})
    update payment_methods p set fingerprint = null, updated_at = now() from ranked r
     where p.location_id = r.location_id and p.id = r.id and r.rank > 1 and r.clean <> ''`);
  await knex.raw(`
    update payment_methods set fingerprint = ${clean('fingerprint')}
     where fingerprint <> ${clean('fingerprint')} and ${clean('fingerprint')} <> ''`);
}

export async function down(): Promise<void> {
  // NFC normalization cannot be undone: the forms the names were sent in are not kept.
}
