import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { SessionGrant } from '../auth/session-grant';
import { intentIdOfSessionSecret, newSessionSecret, sameSessionSecret } from '../auth/session-secret';
import { recordEvents } from '../change-log/record-events';
import { serviceWrite, type WriteContext } from '../change-log/write-context';
import { recordedConsent } from '../mandates';
import { clockNow } from '../platform/clock/location-clock';
import type { PageQuery } from '../platform/db/cursor-page';
import { inTransaction } from '../platform/db/in-transaction';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { DomainError } from '../platform/errors/domain-error';
import { moveSetupIntent } from './setup-intent-moves';
import type { SetupCancellationReason, SetupIntentRecord, SetupMandateTerms } from './setup-intent-record';
import { FINAL_STATUSES, refuseUnless, SETUP_INTENT_EXPIRY_MINUTES, type SetupIntentStatus } from './setup-intent-status';
import { dueSetupExpiries, findSetupIntent, insertSetupIntent, listSetupIntents, lockSetupIntent } from './setup-intents.repository';
import { SETUP_INTENT_CURSOR, toSetupIntentEventObject, type CreateSetupIntentInput } from './setup-intents.schemas';

const EXPIRY_BATCH = 100;
const EXPIRY_MS = SETUP_INTENT_EXPIRY_MINUTES * 60_000;

/** 404 for a setup intent this location does not have. */
export function setupIntentNotFound(): DomainError {
  return new DomainError('SETUP_INTENT_NOT_FOUND');
}

/**
 * Setup intents, the record: create, read, list, cancel, the expiry, and
 * what an `SI_` session secret grants. The confirm, which asks the
 * processor and saves the card and the mandate, is the card-setup flow's
 * (src/flows/card-setup). Every move is made under the intent's row lock
 * with its event, in one transaction (moveSetupIntent).
 */
export class SetupIntentsService {
  async create(write: WriteContext, input: CreateSetupIntentInput): Promise<SetupIntentRecord> {
    const mandateTerms: SetupMandateTerms | null =
      input.usage === 'OFF_SESSION' && input.standingInstructionType !== undefined && input.consent !== undefined
        ? {
            standingInstructionType: input.standingInstructionType,
            contextName: input.contextName ?? null,
            maxAmount: input.maxAmount ?? null,
            consent: recordedConsent(input.consent, clockNow()),
          }
        : null;
    const id = uuidv7();
    return inTransaction(write.db, async (trx) => {
      const created = await insertSetupIntent(trx, {
        locationId: write.locationId,
        id,
        customerId: input.customerId,
        usage: input.usage,
        mandateTerms,
        sessionSecret: newSessionSecret(id, 'SI'),
      });
      if (created === undefined) throw new DomainError('CUSTOMER_NOT_FOUND', { fieldName: 'customerId' });
      await recordEvents(trx, write, [
        { type: 'setup_intent.created', customerId: created.customerId, object: toSetupIntentEventObject(created), previous: null },
      ]);
      return created;
    });
  }

  async get(db: Knex, locationId: string, id: string): Promise<SetupIntentRecord> {
    const intent = await findSetupIntent(db, locationId, id);
    if (intent === undefined) throw setupIntentNotFound();
    return intent;
  }

  async list(
    db: Knex,
    locationId: string,
    query: PageQuery & { customerId?: string; status?: SetupIntentStatus },
  ): Promise<{ intents: SetupIntentRecord[]; hasMore: boolean }> {
    await refuseUnknownCursor(query.startingAfter, SETUP_INTENT_CURSOR, async (after) => (await findSetupIntent(db, locationId, after)) !== undefined);
    return listSetupIntents(db, locationId, { customerId: query.customerId, status: query.status }, query);
  }

  /** CANCELED, with its event, while nothing is being verified; its secret dies with it. */
  async cancel(write: WriteContext, id: string, reason: SetupCancellationReason | null): Promise<SetupIntentRecord> {
    return inTransaction(write.db, async (trx) => {
      const intent = await lockSetupIntent(trx, write.locationId, id);
      if (intent === undefined) throw setupIntentNotFound();
      refuseUnless('cancel', intent.status);
      return moveSetupIntent({ ...write, db: trx }, intent, {
        by: 'cancel',
        changes: { status: 'CANCELED', cancellationReason: reason },
        event: 'setup_intent.canceled',
      });
    });
  }

  /**
   * Cancels the setup intents still unfinished SETUP_INTENT_EXPIRY_MINUTES
   * after their creation (`cancellationReason` EXPIRED), a batch at a time;
   * answers how many. Each is looked at again under its lock, so a confirm
   * racing the sweep, or replicas sweeping at once, move it once.
   */
  async expireDue(db: Knex, locationId?: string): Promise<number> {
    let expired = 0;
    for (const due of await dueSetupExpiries(db, SETUP_INTENT_EXPIRY_MINUTES, EXPIRY_BATCH, locationId)) {
      const write = serviceWrite(db, due.locationId);
      const moved = await inTransaction(db, async (trx) => {
        const intent = await lockSetupIntent(trx, due.locationId, due.id);
        if (intent?.status !== 'REQUIRES_PAYMENT_METHOD') return false;
        await moveSetupIntent({ ...write, db: trx }, intent, {
          by: 'expiry',
          changes: { status: 'CANCELED', cancellationReason: 'EXPIRED' },
          event: 'setup_intent.canceled',
        });
        return true;
      });
      if (moved) expired += 1;
    }
    return expired;
  }

  /**
   * What an `SI_` session secret grants, if it is live: well formed, equal in
   * whole to its setup intent's (compared in constant time), the intent not
   * finished, and younger than SETUP_INTENT_EXPIRY_MINUTES on the location's clock.
   */
  async sessionGrant(db: Knex, locationId: string, secret: string): Promise<SessionGrant | undefined> {
    const id = intentIdOfSessionSecret(secret, 'SI');
    if (id === undefined) return undefined;
    const intent = await findSetupIntent(db, locationId, id);
    if (intent === undefined || !sameSessionSecret(secret, intent.sessionSecret)) return undefined;
    if (FINAL_STATUSES.includes(intent.status) || clockNow().getTime() - intent.createdAt.getTime() >= EXPIRY_MS) return undefined;
    return { intentId: null, setupIntentId: intent.id, customerId: intent.customerId };
  }
}
