import type { Knex } from 'knex';

/**
 * The webhook dispatcher's claim looks for due deliveries endpoint by
 * endpoint (webhooks/webhook-deliveries.repository.ts): each endpoint's
 * pending deliveries, in due order, under one index. The index of every
 * pending delivery in due order it replaces served one window over all
 * endpoints, which one endpoint's backlog could fill.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index webhook_deliveries_pending_of_endpoint on webhook_deliveries (endpoint_id, next_attempt_at) where status = 'PENDING'`);
  await knex.raw('drop index webhook_deliveries_due');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'PENDING'`);
  await knex.raw('drop index webhook_deliveries_pending_of_endpoint');
}
