/** Whether a mandate may still be charged: ACTIVE until revoked (by the merchant, or by the customer's erasure), then INACTIVE for good. */
export const MANDATE_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

/** The card networks' kinds of stored-credential agreement (the contract's `standingInstructionType`). */
export const STANDING_INSTRUCTION_TYPES = ['INSTALLMENT', 'RECURRING', 'UNSCHEDULED'] as const;
export type StandingInstructionType = (typeof STANDING_INSTRUCTION_TYPES)[number];

export const CONSENT_CHANNELS = ['ONLINE', 'IN_PERSON', 'PHONE'] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];

/** The payor's consent as recorded; `ipAddress` and `userAgent` are personal data, cleared by an erasure. */
export interface ConsentRecord {
  acceptedAt: Date;
  textVersion: string;
  channel: ConsentChannel | null;
  ipAddress: string | null;
  userAgent: string | null;
}

/** A consent's columns, as a mandate's row and a setup intent's keep them. */
export interface ConsentColumns {
  consent_accepted_at: Date | string;
  consent_text_version: string;
  consent_channel: ConsentChannel | null;
  consent_ip_address: string | null;
  consent_user_agent: string | null;
}

export function consentFromColumns(row: ConsentColumns): ConsentRecord {
  return {
    acceptedAt: new Date(row.consent_accepted_at),
    textVersion: row.consent_text_version,
    channel: row.consent_channel,
    ipAddress: row.consent_ip_address,
    userAgent: row.consent_user_agent,
  };
}

/** What a charge needs of a card: an ACTIVE mandate keeps it, for when the payor removes the card. */
export interface MandateCard {
  brand: string;
  lastFour: string;
  expMonth: string;
  expYear: string;
}

/** A mandate as the service holds it (mandates.schemas.ts makes the API's answer of it). */
export interface MandateRecord {
  locationId: string;
  id: string;
  customerId: string;
  paymentMethodId: string;
  contextName: string | null;
  standingInstructionType: StandingInstructionType;
  status: MandateStatus;
  maxAmount: number | null;
  consent: ConsentRecord;
  /** The card as it was when the mandate was made, charged once the payor has removed it; null once revoked. */
  card: MandateCard | null;
  createdAt: Date;
  revokedAt: Date | null;
}
