import type { Knex } from 'knex';

/**
 * A sales day (docs/settlement.md, Sales days) is every line about the
 * captures of one business date: the captures and the refunds and failures
 * later lines record against them, whichever day those landed in. This
 * index reads one such day in the order written without scanning the
 * location's ledger.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index ledger_lines_of_sales_day on ledger_lines (location_id, original_business_date, currency, id) where original_business_date is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index ledger_lines_of_sales_day');
}
