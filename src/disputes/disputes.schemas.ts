import { z } from 'zod';
import { MAX_AMOUNT } from '../payment-intents';
import { withThousands } from '../platform/document-parts/prose-numbers';
import { int32 } from '../platform/validation/int32';
import { instant } from '../platform/validation/instant';
import { pageOf, pageQuery } from '../platform/validation/page-query';
import { identifierText, safeText, uuidValue } from '../platform/validation/text.schemas';
import { EVIDENCE_DOCUMENT_TYPES, type DisputeRecord } from './dispute-record';
import { DISPUTE_CLOSERS, DISPUTE_REASONS, DISPUTE_STAGES, DISPUTE_STATUSES } from './dispute-status';

/** The most document references one dispute's evidence holds. */
const MAX_DOCUMENTS = 20;
/** Stripe's limit on one evidence text field. */
const MAX_EXPLANATION = 20_000;

export const disputeReasonSchema = z.enum(DISPUTE_REASONS).meta({ description: "Stripe's reasons." });
export const evidenceDocumentTypeSchema = z.enum(EVIDENCE_DOCUMENT_TYPES).meta({ description: "What the document is (Hyperswitch's evidence types)." });

const documentSchema = z
  .strictObject({
    type: evidenceDocumentTypeSchema,
    url: z
      .url({ protocol: /^https$/ })
      .max(2048)
      .meta({ description: 'Where the merchant keeps it (https). The service stores the reference, never the file; an erasure clears it.' }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, { message: 'Must be a SHA-256 as 64 lower-case hex digits.' })
      .length(64)
      .meta({ description: "The file's SHA-256, 64 lower-case hex digits: what the issuer is sent is what was referenced." }),
    fileName: safeText({ min: 1, max: 255 }).optional(),
  })
  .meta({ id: 'DisputeEvidenceDocument' });

const evidenceFields = {
  explanation: safeText({ min: 1, max: MAX_EXPLANATION, allowLineBreaks: true }).meta({
    description: `The merchant's account of the payment, at most ${withThousands(MAX_EXPLANATION)} characters (Stripe's limit).`,
  }),
  serviceDate: z.iso.date().length(10).meta({ description: 'When the goods or service were provided (YYYY-MM-DD).' }),
  receiptReference: identifierText({ min: 1, max: 255, description: "The receipt's or check's number (Toast's Check ID)." }),
  customerName: safeText({ min: 1, max: 255 }).meta({ description: "The payor's name: personal data, cleared by an erasure." }),
  customerEmail: z.email().max(254).meta({ description: "The payor's e-mail: personal data, cleared by an erasure." }),
  documents: z.array(documentSchema).max(MAX_DOCUMENTS).meta({ description: 'References to the documents, at most 20; a new list replaces the staged one.' }),
};

export const submitDisputeEvidenceRequestSchema = z
  .strictObject({
    explanation: evidenceFields.explanation.optional(),
    serviceDate: evidenceFields.serviceDate.optional(),
    receiptReference: evidenceFields.receiptReference.optional(),
    customerName: evidenceFields.customerName.optional(),
    customerEmail: evidenceFields.customerEmail.optional(),
    documents: evidenceFields.documents.optional(),
    submit: z.boolean().optional().meta({
      description:
        "Stripe's semantics: false (the default) stages the fields given over those staged before; true stages them and submits the whole evidence to the issuer, once.",
    }),
  })
  .meta({
    id: 'DisputeEvidenceRequest',
    example: {
      explanation: 'The order was delivered to the table at 19:42; the guest signed the check.',
      receiptReference: 'check-1042',
      documents: [
        {
          type: 'customer_signature',
          url: 'https://files.example.com/checks/1042.pdf',
          sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
          fileName: 'check-1042.pdf',
        },
      ],
      submit: true,
    },
  });

export type DisputeEvidenceInput = z.output<typeof submitDisputeEvidenceRequestSchema>;

const evidenceSchema = z
  .strictObject({
    explanation: z.string().nullable(),
    serviceDate: z.string().nullable(),
    receiptReference: z.string().nullable(),
    customerName: z.string().nullable(),
    customerEmail: z.string().nullable(),
    documents: z
      .array(
        z.strictObject({
          type: z.enum(EVIDENCE_DOCUMENT_TYPES),
          url: z.string().nullable().meta({ description: 'Null once the customer is erased.' }),
          sha256: z.string(),
          fileName: z.string().nullable(),
        }),
      )
      .max(MAX_DOCUMENTS),
    submitted: z.boolean().meta({ description: 'Whether it was submitted (then it never changes).' }),
  })
  .meta({ id: 'DisputeEvidence' });

const time = (description: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `${description} ISO 8601 UTC, on the location's clock.` });

const DISPUTE_EXAMPLE = {
  id: '019ad0b2-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
  paymentIntentId: '019ac5e1-6a1b-7c2d-8e3f-4a5b6c7d8e9f',
  customerId: '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9',
  externalReferenceId: 'order-1042',
  amount: 3000,
  currency: 'USD',
  stage: 'CHARGEBACK',
  status: 'NEEDS_RESPONSE',
  reason: 'PRODUCT_NOT_RECEIVED',
  networkReasonCode: '13.1',
  card: { brand: 'VISA', lastFour: '2685' },
  evidence: {
    explanation: null,
    serviceDate: null,
    receiptReference: null,
    customerName: null,
    customerEmail: null,
    documents: [],
    submitted: false,
  },
  openedAt: '2026-11-28T19:43:07.220Z',
  evidenceDueBy: '2026-12-16T19:43:07.220Z',
  submittedAt: null,
  decisionExpectedBy: null,
  closedAt: null,
  closedBy: null,
  fundsWithdrawnAt: '2026-11-28T19:43:07.220Z',
  fundsReinstatedAt: null,
};

export const disputeSchema = z
  .strictObject({
    id: z.uuid(),
    paymentIntentId: z.uuid(),
    customerId: z.uuid().nullable().meta({ description: "The intent's customer; null once erased." }),
    externalReferenceId: z.string().nullable().meta({ description: "The intent's reference (Toast's Payment ID and Check ID live here)." }),
    amount: int32(1, MAX_AMOUNT).meta({ description: "What is disputed, in minor units of the intent's currency." }),
    currency: z.string(),
    stage: z.enum(DISPUTE_STAGES).meta({ description: 'INQUIRY (a request for information: no money moves) or CHARGEBACK.' }),
    status: z.enum(DISPUTE_STATUSES).meta({ description: "Where it stands: the status table in the document's description of the disputes." }),
    reason: disputeReasonSchema,
    networkReasonCode: z.string().nullable().meta({ description: "The card network's reason code, when known (Visa's 13.1, …)." }),
    card: z.strictObject({ brand: z.string(), lastFour: z.string() }).nullable(),
    evidence: evidenceSchema,
    openedAt: z.string().meta({ description: "When it opened. ISO 8601 UTC, on the location's clock." }),
    evidenceDueBy: z.string().meta({
      description: "Evidence must be submitted before this; then a chargeback is ACCEPTED, an inquiry becomes one. ISO 8601 UTC, on the location's clock.",
    }),
    submittedAt: time('When the evidence was submitted.'),
    decisionExpectedBy: time('When the issuer decides (the submission plus the decision window of the card brand).'),
    closedAt: time('When it ended.'),
    closedBy: z.enum(DISPUTE_CLOSERS).nullable().meta({
      description: 'Who ended it: MERCHANT (accepted), DEADLINE (no evidence in time), ISSUER (decided), REFUND (a refund left nothing to dispute).',
    }),
    fundsWithdrawnAt: time("When a chargeback's amount and the dispute fee were withdrawn (its ledger lines)."),
    fundsReinstatedAt: time("When a won chargeback's amount came back."),
  })
  .meta({ id: 'Dispute', example: DISPUTE_EXAMPLE });

export type Dispute = z.infer<typeof disputeSchema>;

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export function toDispute(dispute: DisputeRecord): Dispute {
  const { evidence } = dispute;
  return {
    id: dispute.id,
    paymentIntentId: dispute.paymentIntentId,
    customerId: dispute.customerId,
    externalReferenceId: dispute.externalReferenceId,
    amount: dispute.amount,
    currency: dispute.currency,
    stage: dispute.stage,
    status: dispute.status,
    reason: dispute.reason,
    networkReasonCode: dispute.networkReasonCode,
    card: dispute.card === null ? null : { brand: dispute.card.brand, lastFour: dispute.card.lastFour },
    evidence: {
      explanation: evidence.explanation ?? null,
      serviceDate: evidence.serviceDate ?? null,
      receiptReference: evidence.receiptReference ?? null,
      customerName: evidence.customerName ?? null,
      customerEmail: evidence.customerEmail ?? null,
      documents: (evidence.documents ?? []).map((document) => ({
        type: document.type,
        url: document.url,
        sha256: document.sha256,
        fileName: document.fileName,
      })),
      submitted: dispute.submittedAt !== null,
    },
    openedAt: dispute.openedAt.toISOString(),
    evidenceDueBy: dispute.evidenceDueBy.toISOString(),
    submittedAt: iso(dispute.submittedAt),
    decisionExpectedBy: iso(dispute.decisionExpectedBy),
    closedAt: iso(dispute.closedAt),
    closedBy: dispute.closedBy,
    fundsWithdrawnAt: iso(dispute.fundsWithdrawnAt),
    fundsReinstatedAt: iso(dispute.fundsReinstatedAt),
  };
}

export const disputeParamsSchema = z.object({ id: uuidValue.meta({ description: 'Dispute identifier.', param: { id: 'DisputeId' } }) });

export const listDisputesQuerySchema = z.object({
  ...pageQuery({ items: 'Disputes', item: 'dispute' }, 'newest first', DISPUTE_EXAMPLE.id),
  status: z.enum(DISPUTE_STATUSES).optional().meta({ description: 'Only disputes in this status.', example: 'NEEDS_RESPONSE' }),
  stage: z.enum(DISPUTE_STAGES).optional().meta({ description: 'Only disputes at this stage.', example: 'CHARGEBACK' }),
  paymentIntentId: uuidValue.optional().meta({ description: "Only this payment intent's disputes.", example: DISPUTE_EXAMPLE.paymentIntentId }),
  dueBefore: instant.optional().meta({
    description: 'Only disputes whose `evidenceDueBy` is before this instant (what needs an answer soon).',
    example: '2026-12-31T00:00:00Z',
  }),
});

export type ListDisputesQuery = z.output<typeof listDisputesQuerySchema>;

export const listIntentDisputesQuerySchema = z.object({ ...pageQuery({ items: 'Disputes', item: 'dispute' }, 'newest first', DISPUTE_EXAMPLE.id) });

/** What a disputes list's `startingAfter` must be. */
export const DISPUTE_CURSOR = 'a dispute of this location';
export const INTENT_DISPUTE_CURSOR = "one of this payment intent's disputes";

export const disputeListResponseSchema = pageOf(
  'disputes',
  disputeSchema,
  { items: 'disputes', order: 'Newest first' },
  { id: 'DisputeList', example: { results: 1, disputes: [DISPUTE_EXAMPLE], hasMore: false } },
);

export const openSandboxDisputeRequestSchema = z
  .strictObject({
    stage: z.enum(DISPUTE_STAGES),
    reason: z.enum(DISPUTE_REASONS),
    amount: int32(1, MAX_AMOUNT)
      .optional()
      .meta({ description: 'What is disputed; all that is left (captured, less refunded, less already disputed) when left out.' }),
    networkReasonCode: identifierText({ min: 1, max: 16, description: "The network's reason code to record, e.g. 10.4." }).optional(),
  })
  .meta({ id: 'OpenSandboxDisputeRequest', example: { stage: 'CHARGEBACK', reason: 'FRAUDULENT', amount: 500, networkReasonCode: '10.4' } });

export type OpenDisputeInput = z.output<typeof openSandboxDisputeRequestSchema>;

export const decideSandboxDisputeRequestSchema = z
  .strictObject({ outcome: z.enum(['WON', 'LOST']).meta({ description: "The issuer's decision, taken at once." }) })
  .meta({ id: 'DecideSandboxDisputeRequest', example: { outcome: 'WON' } });
