import type { ConsentRecord, StandingInstructionType } from '../mandates';
import type { PaymentError } from '../payment-processor/payment-processor';
import type { SetupIntentStatus } from './setup-intent-status';

/** ON_SESSION: the payor pays with the card later, present; OFF_SESSION: the merchant may charge it, under the mandate the setup makes. */
export const SETUP_USAGES = ['ON_SESSION', 'OFF_SESSION'] as const;
export type SetupUsage = (typeof SETUP_USAGES)[number];

/** A caller's reasons, and EXPIRED, the service's own. */
export const SETUP_CANCELLATION_REASONS = ['REQUESTED_BY_CUSTOMER', 'ABANDONED', 'DUPLICATE', 'EXPIRED'] as const;
export type SetupCancellationReason = (typeof SETUP_CANCELLATION_REASONS)[number];

/** The card a confirm brought: the vault's metadata, never a number. */
export interface SetupCard {
  brand: string;
  lastFour: string;
  expiry: { month: string; year: string };
  fingerprint: string | null;
}

/** The mandate an OFF_SESSION setup makes once its card is verified, as the create recorded it. */
export interface SetupMandateTerms {
  standingInstructionType: StandingInstructionType;
  contextName: string | null;
  maxAmount: number | null;
  consent: ConsentRecord;
}

/** A setup intent as the service holds it (setup-intents.schemas.ts makes the API's answer of it). */
export interface SetupIntentRecord {
  locationId: string;
  id: string;
  /** Null once the customer is erased. */
  customerId: string | null;
  usage: SetupUsage;
  /** Null for ON_SESSION. */
  mandateTerms: SetupMandateTerms | null;
  sessionSecret: string;
  status: SetupIntentStatus;
  cancellationReason: SetupCancellationReason | null;
  /** Confirms so far: the processor's idempotency keys are made of it. */
  attempts: number;
  card: SetupCard | null;
  lastSetupError: PaymentError | null;
  processorReference: string | null;
  paymentMethodId: string | null;
  mandateId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a move may change. */
export type SetupIntentChanges = Partial<
  Pick<SetupIntentRecord, 'status' | 'cancellationReason' | 'attempts' | 'card' | 'lastSetupError' | 'processorReference' | 'paymentMethodId' | 'mandateId'>
>;
