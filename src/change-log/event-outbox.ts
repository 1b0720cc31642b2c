import type { Knex } from 'knex';
import { namedStatement, runNamed, type NamedStatement } from '../platform/db/prepared-statement';

/**
 * A consumer of the outbox (the webhook fan-out): one statement that takes
 * up to `@outbox_batch` events off the outbox, oldest first, and hands them
 * to `consume`, SQL that reads the CTE `taken_events (location_id, event_id,
 * type)`. `skip locked`: consumers running at once take disjoint batches, so
 * no event is consumed twice; with nothing new, it is one cheap statement.
 * The batch is chosen once (an InitPlan) and deleted by its rows' tuple ids,
 * and the statement is planned on every run: the outbox is a queue, and a
 * plan kept from when it was empty read the whole backlog for each batch
 * (docs/decisions.md).
 */
export function outboxConsumer(name: string, consume: string): NamedStatement {
  return namedStatement(
    name,
    `with taken as (
       delete from event_outbox
        where ctid = any (array(
                select ctid from event_outbox order by created_at limit @outbox_batch for update skip locked))
       returning location_id, event_id
     ),
     taken_events as (
       select t.location_id, t.event_id, ev.type from taken t join events ev on ev.location_id = t.location_id and ev.id = t.event_id
     ),
     consumed as (${consume})
     select count(*)::int as taken from taken`,
    { planEachRun: true },
  );
}

/** Runs an outboxConsumer on up to `batchSize` events; answers how many it took. */
export async function takeFromOutbox(db: Knex, consumer: NamedStatement, batchSize: number): Promise<number> {
  const [row] = await runNamed<{ taken: number }>(db, consumer, { outbox_batch: batchSize });
  return row?.taken ?? 0;
}
