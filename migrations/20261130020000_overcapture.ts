import type { Knex } from 'knex';

/**
 * The tip added at capture (overcapture): the sandbox remembers, with an
 * authorization, whether its card refuses a capture above the authorized
 * amount (docs/checkout.md, the sandbox's cards), as it remembers whether
 * every capture of it fails.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table sandbox_processor_operations add column overcapture_fails boolean not null default false');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table sandbox_processor_operations drop column overcapture_fails');
}
