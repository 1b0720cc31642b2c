import type { DisputeCloser, DisputeReason, DisputeStage, DisputeStatus } from './dispute-status';

/** Hyperswitch's evidence types: what a document reference says it is. */
export const EVIDENCE_DOCUMENT_TYPES = [
  'receipt',
  'customer_signature',
  'customer_communication',
  'service_documentation',
  'refund_policy',
  'cancellation_policy',
  'invoice_showing_distinct_transactions',
  'recurring_transaction_agreement',
  'uncategorized_file',
] as const;
export type EvidenceDocumentType = (typeof EVIDENCE_DOCUMENT_TYPES)[number];

/** A document the merchant keeps: where it is and its hash, never the file. Its URL is personal data (an erasure clears it). */
export interface EvidenceDocument {
  type: EvidenceDocumentType;
  url: string | null;
  sha256: string;
  fileName: string | null;
}

/** The evidence as staged: each field absent until given. The name, the e-mail and the documents' URLs are personal data. */
export interface DisputeEvidence {
  explanation?: string;
  serviceDate?: string;
  receiptReference?: string;
  customerName?: string | null;
  customerEmail?: string | null;
  documents?: EvidenceDocument[];
}

/** A dispute as the service holds it (disputes.schemas.ts makes the API's answer of it). */
export interface DisputeRecord {
  locationId: string;
  id: string;
  paymentIntentId: string;
  /** The intent's customer; null once erased (or for an intent of none). */
  customerId: string | null;
  externalReferenceId: string | null;
  amount: number;
  currency: string;
  stage: DisputeStage;
  status: DisputeStatus;
  reason: DisputeReason;
  networkReasonCode: string | null;
  card: { brand: string; lastFour: string } | null;
  evidence: DisputeEvidence;
  /** The sandbox's forced decision, taken at once; null: the written rule decides. */
  forcedOutcome: 'WON' | 'LOST' | null;
  openedAt: Date;
  evidenceDueBy: Date;
  submittedAt: Date | null;
  decisionExpectedBy: Date | null;
  closedAt: Date | null;
  closedBy: DisputeCloser | null;
  /** When a chargeback's amount and fee are to be withdrawn (null: an inquiry, or a chargeback won before). */
  fundsDueAt: Date | null;
  fundsWithdrawnAt: Date | null;
  fundsReinstatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
