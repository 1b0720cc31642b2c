import { DomainError } from '../platform/errors/domain-error';
import type { ConsentRecord } from './mandate-record';
import type { CreateMandateInput } from './mandates.schemas';

/** How far ahead of this service's clock a consent's `acceptedAt` may be: the integrator's clock may run a little fast. */
const ACCEPTED_AT_TOLERANCE_MS = 60_000;

/**
 * A consent as it is recorded, from the request's: `acceptedAt` must not be
 * in the future (400 naming `fieldPrefix.acceptedAt`). A mandate's create
 * and a setup intent's create both record one this way.
 */
export function recordedConsent(consent: CreateMandateInput['consent'], now: Date, fieldPrefix = 'consent'): ConsentRecord {
  const acceptedAt = new Date(consent.acceptedAt);
  if (acceptedAt.getTime() > now.getTime() + ACCEPTED_AT_TOLERANCE_MS) {
    throw new DomainError('VALIDATION_FAILED', { fieldName: `${fieldPrefix}.acceptedAt`, message: 'Must not be in the future: when the payor agreed.' });
  }
  return {
    acceptedAt,
    textVersion: consent.textVersion,
    channel: consent.channel ?? null,
    ipAddress: consent.ipAddress ?? null,
    userAgent: consent.userAgent ?? null,
  };
}
