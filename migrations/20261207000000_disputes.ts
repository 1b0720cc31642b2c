import type { Knex } from 'knex';

/**
 * Disputes (issue 56, docs/disputes.md): a dispute of a captured payment,
 * from inquiry or chargeback to its decision, on the location's clock.
 *
 * A chargeback's amount is held on its intent (`amount_disputed`), taken in
 * the same guarded update refunds take theirs from, so refunded plus
 * disputed never passes captured. `dispute_status` is the status of the
 * intent's dispute most recently moved (null: never disputed); the partial
 * index finds the sandbox's dispute cards (last four 2685 and 1976) captured
 * and not disputed yet, and only them.
 *
 * The location's dispute rules (when a chargeback's funds are withdrawn,
 * whether a won one gives its fee back, the response and decision windows by
 * card brand) are a version's `dispute_rules`: what a version leaves out is
 * the default (src/settlement/location-settings-defaults.ts).
 *
 * The new columns have constant defaults (no rewrite of payment_intents);
 * the check and the partial index each read the table once, under the
 * migration's lock, while writes to payment_intents wait (docs/deployment.md,
 * Migrations, gives the time at a million intents).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table disputes (
      location_id           text        not null,
      id                    uuid        not null,
      payment_intent_id     uuid        not null,
      customer_id           uuid,
      external_reference_id text,
      amount                integer     not null check (amount > 0),
      currency              text        not null,
      stage                 text        not null check (stage in ('INQUIRY', 'CHARGEBACK')),
      status                text        not null check (status in ('NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED', 'CLOSED')),
      reason                text        not null,
      network_reason_code   text,
      card_brand            text,
      card_last_four        text,
      evidence              jsonb       not null default '{}',
      forced_outcome        text        check (forced_outcome in ('WON', 'LOST')),
      opened_at             timestamptz not null,
      evidence_due_by       timestamptz not null,
      submitted_at          timestamptz,
      decision_expected_by  timestamptz,
      closed_at             timestamptz,
      closed_by             text        check (closed_by in ('MERCHANT', 'DEADLINE', 'ISSUER', 'REFUND')),
      funds_due_at          timestamptz,
      funds_withdrawn_at    timestamptz,
      funds_reinstated_at   timestamptz,
      created_at            timestamptz not null,
      updated_at            timestamptz not null,
      primary key (location_id, id)
    )`);
  await knex.raw('create index disputes_of_intent on disputes (location_id, payment_intent_id, id)');
  await knex.raw('create index disputes_of_customer on disputes (location_id, customer_id) where customer_id is not null');
  // What the clock's rules look for: a response past its deadline, a decision due, a chargeback's funds due.
  await knex.raw("create index disputes_awaiting_response on disputes (evidence_due_by) where status = 'NEEDS_RESPONSE'");
  await knex.raw("create index disputes_awaiting_decision on disputes (decision_expected_by) where status = 'UNDER_REVIEW'");
  await knex.raw(
    "create index disputes_funds_due on disputes (funds_due_at) where stage = 'CHARGEBACK' and funds_withdrawn_at is null and funds_due_at is not null",
  );

  await knex.raw('alter table payment_intents add column amount_disputed integer not null default 0');
  await knex.raw('alter table payment_intents add column dispute_status text');
  await knex.raw(
    'alter table payment_intents add constraint payment_intents_refunded_and_disputed check (amount_refunded + amount_disputed <= amount_captured)',
  );
  await knex.raw(`create index payment_intents_sandbox_disputes on payment_intents (captured_at)
    where status = 'SUCCEEDED' and dispute_status is null and (latest_payment #>> '{card,lastFour}') in ('1976', '2685')`);

  await knex.raw("alter table location_settings add column dispute_rules jsonb not null default '{}'");
  // Closed batches gain the disputes' count and total (none before this migration); their seals stand.
  await knex.raw(`update ledger_batches set counts = counts || '{"disputes": 0}'::jsonb, totals = totals || '{"disputes": 0}'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update ledger_batches set counts = counts - 'disputes', totals = totals - 'disputes'`);
  await knex.raw('alter table location_settings drop column dispute_rules');
  await knex.raw('drop index payment_intents_sandbox_disputes');
  await knex.raw('alter table payment_intents drop constraint payment_intents_refunded_and_disputed');
  await knex.raw('alter table payment_intents drop column dispute_status');
  await knex.raw('alter table payment_intents drop column amount_disputed');
  await knex.raw('drop table disputes');
}
