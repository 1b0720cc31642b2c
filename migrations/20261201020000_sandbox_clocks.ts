import type { Knex } from 'knex';

/**
 * A sandbox clock per location: how far it has been advanced ahead of real
 * time (docs/cards-on-file.md, The sandbox clock). A location without a row
 * is on real time. Only ever increased: a clock never goes back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table sandbox_clocks (
      location_id text        primary key,
      offset_ms   bigint      not null check (offset_ms >= 0),
      updated_at  timestamptz not null default now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table sandbox_clocks');
}
