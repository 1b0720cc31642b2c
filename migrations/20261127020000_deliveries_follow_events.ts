import type { Knex } from 'knex';

/**
 * A webhook delivery (and its attempts) goes with its event: purging an
 * expired event removes them by the foreign key, so retention is one delete,
 * and no delivery is ever left pointing at nothing. Deliveries already
 * orphaned by an earlier purge are removed first.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    delete from webhook_deliveries d
     where not exists (select 1 from events e where e.location_id = d.location_id and e.id = d.event_id)`);
  await knex.raw(`
    alter table webhook_deliveries
      add constraint webhook_deliveries_event_fk
      foreign key (location_id, event_id) references events (location_id, id) on delete cascade`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table webhook_deliveries drop constraint webhook_deliveries_event_fk');
}
