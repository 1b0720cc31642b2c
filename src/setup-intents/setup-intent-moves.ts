import type { Knex } from 'knex';
import { recordEvents } from '../change-log/record-events';
import type { EventType } from '../change-log/event-types';
import type { WriteContext } from '../change-log/write-context';
import { clockNow } from '../platform/clock/location-clock';
import type { SetupIntentChanges, SetupIntentRecord } from './setup-intent-record';
import { tableAllows, type SetupMoveCause } from './setup-intent-status';
import { saveSetupIntent } from './setup-intents.repository';
import { toSetupIntentEventObject } from './setup-intents.schemas';

/** A step of a setup intent: the cause that makes it, what it changes, and its event (the move to PROCESSING records none). */
export interface SetupStep {
  by: SetupMoveCause;
  changes: SetupIntentChanges;
  event?: EventType;
}

/**
 * Makes one step of a setup intent the caller holds locked (lockSetupIntent
 * in the same transaction), with its event: the status table decides
 * whether the move exists (one it lacks is a programming error, thrown
 * before anything is written). The event's `previous` is the status left.
 */
export async function moveSetupIntent(write: WriteContext & { db: Knex.Transaction }, intent: SetupIntentRecord, step: SetupStep): Promise<SetupIntentRecord> {
  const to = step.changes.status ?? intent.status;
  if (!tableAllows(step.by, intent.status, to)) throw new Error(`the setup intent status table has no move by ${step.by} from ${intent.status} to ${to}`);
  const moved = await saveSetupIntent(write.db, intent, step.changes, clockNow());
  if (step.event !== undefined) {
    await recordEvents(write.db, write, [
      { type: step.event, customerId: moved.customerId, object: toSetupIntentEventObject(moved), previous: { status: intent.status } },
    ]);
  }
  return moved;
}
