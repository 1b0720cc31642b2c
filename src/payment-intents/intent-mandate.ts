import type { Knex } from 'knex';
import { customerExists } from '../customers';
import { mandateForCharge, type MandateRecord } from '../mandates';
import { DomainError } from '../platform/errors/domain-error';

/** What an intent says of the charge's mandate, as a create, an update or a confirm would leave it. */
export interface MandateTerms {
  locationId: string;
  customerId: string | null;
  mandateId: string | null;
  offSession: boolean;
  amount: number;
}

/**
 * The mandate an intent is charged under, checked as the intent would
 * stand: a merchant-initiated (off-session) charge must name one; the one
 * named must be an ACTIVE mandate of the intent's customer, and the amount
 * within its `maxAmount`. Undefined for an intent that names none. Checked at
 * create, update and confirm alike, so a revocation stops the next of them.
 */
export async function mandateOfIntent(db: Knex, terms: MandateTerms): Promise<MandateRecord | undefined> {
  if (terms.mandateId === null) {
    if (!terms.offSession) return undefined;
    throw new DomainError('VALIDATION_FAILED', {
      fieldName: 'mandateId',
      message: "Required with offSession: true: the ACTIVE mandate of the intent's customer the charge is made under.",
    });
  }
  const mandate = terms.customerId === null ? undefined : await mandateForCharge(db, terms.locationId, terms.customerId, terms.mandateId);
  // A customer never seen and one erased answer alike, before anything of their mandates (docs/cards-on-file.md, After an erasure).
  if (mandate === undefined && terms.customerId !== null && !(await customerExists(db, terms.locationId, terms.customerId))) {
    throw new DomainError('CUSTOMER_NOT_FOUND', { fieldName: 'customerId' });
  }
  if (mandate === undefined) {
    throw new DomainError('MANDATE_NOT_FOUND', { fieldName: 'mandateId', message: "The intent's customer has no mandate with this id." });
  }
  if (mandate.status !== 'ACTIVE') throw new DomainError('MANDATE_INACTIVE', { fieldName: 'mandateId' });
  if (mandate.maxAmount !== null && terms.amount > mandate.maxAmount) {
    throw new DomainError('MANDATE_AMOUNT_EXCEEDED', {
      fieldName: 'amount',
      message: `Must be at most the mandate's maxAmount, ${mandate.maxAmount} (minor units).`,
    });
  }
  return mandate;
}
