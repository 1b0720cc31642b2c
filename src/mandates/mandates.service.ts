import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { WriteContext } from '../change-log/write-context';
import { customerExists } from '../customers';
import type { PageQuery } from '../platform/db/cursor-page';
import { clockNow } from '../platform/clock/location-clock';
import { DomainError } from '../platform/errors/domain-error';
import { recordedConsent } from './consent';
import { createMandate, findMandate, listMandates, revokeMandate, type MandateRecord } from './mandates.repository';
import { refuseUnknownCursor } from '../platform/db/page-cursor';
import { MANDATE_CURSOR, type CreateMandateInput } from './mandates.schemas';

/**
 * Mandates: the payor's recorded consent to be charged later, off-session,
 * on a saved card (docs/cards-on-file.md). Made, read and revoked here; a
 * payment intent checks the mandate it names through this feature's index.
 */
export class MandatesService {
  async create(write: WriteContext, customerId: string, input: CreateMandateInput): Promise<MandateRecord> {
    const now = clockNow();
    const consent = recordedConsent(input.consent, now);
    const made = await createMandate(
      write,
      {
        id: uuidv7(),
        customerId,
        paymentMethodId: input.paymentMethodId,
        contextName: input.contextName ?? null,
        standingInstructionType: input.standingInstructionType,
        maxAmount: input.maxAmount ?? null,
        consent,
      },
      now,
    );
    if (made !== undefined) return made;
    if (!(await customerExists(write.db, write.locationId, customerId))) throw new DomainError('CUSTOMER_NOT_FOUND');
    throw new DomainError('PAYMENT_METHOD_NOT_FOUND', { fieldName: 'paymentMethodId', message: 'The customer has no saved card with this id.' });
  }

  async get(db: Knex, locationId: string, customerId: string, id: string): Promise<MandateRecord> {
    const mandate = await findMandate(db, locationId, customerId, id);
    if (mandate !== undefined) return mandate;
    if (!(await customerExists(db, locationId, customerId))) throw new DomainError('CUSTOMER_NOT_FOUND');
    throw new DomainError('MANDATE_NOT_FOUND');
  }

  /** The customer's mandates, newest first; 404 for a customer this location does not have. */
  async list(db: Knex, locationId: string, customerId: string, page: PageQuery): Promise<{ mandates: MandateRecord[]; hasMore: boolean }> {
    if (!(await customerExists(db, locationId, customerId))) throw new DomainError('CUSTOMER_NOT_FOUND');
    await refuseUnknownCursor(page.startingAfter, MANDATE_CURSOR, async (after) => (await findMandate(db, locationId, customerId, after)) !== undefined);
    return listMandates(db, locationId, customerId, page);
  }

  /** INACTIVE for good, with its event; a mandate already INACTIVE is answered as it is, with no second event. */
  async revoke(write: WriteContext, customerId: string, id: string): Promise<MandateRecord> {
    const mandate = await this.get(write.db, write.locationId, customerId, id);
    if (mandate.status === 'INACTIVE') return mandate;
    // A concurrent revocation may win: then it recorded the event, and this one answers the mandate as that left it.
    return (await revokeMandate(write, mandate, clockNow())) ?? this.get(write.db, write.locationId, customerId, id);
  }
}
