import { z } from 'zod';
import { MAX_AMOUNT } from '../../payment-intents';
import { int32 } from '../../platform/validation/int32';
import { disputeReasonSchema, evidenceDocumentTypeSchema } from '../../disputes';

const EVIDENCE_DOCUMENT_TYPE_COUNT = evidenceDocumentTypeSchema.options.length;

const EXAMPLE = {
  disputeId: '019ad0b2-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
  reason: 'DUPLICATE',
  evidence: {
    explanation:
      'Payment order-1042 of 3000 (minor units, USD, of which a tip of 400) was captured on 2026-11-27T23:41:07.220Z from the VISA card ending 4242. No refund was made.',
    serviceDate: '2026-11-27',
    receiptReference: 'order-1042',
    customerEmail: 'ada@example.com',
    documentTypesNeeded: ['invoice_showing_distinct_transactions'],
  },
  payment: {
    id: '019ac5e1-6a1b-7c2d-8e3f-4a5b6c7d8e9f',
    externalReferenceId: 'order-1042',
    amountCaptured: 3000,
    tip: 400,
    currency: 'USD',
    capturedAt: '2026-11-27T23:41:07.220Z',
    card: { brand: 'VISA', lastFour: '4242' },
  },
  refunds: [],
  sameAmountWithinADay: [
    { id: '019ac5f0-1a2b-7c3d-8e4f-5a6b7c8d9e0f', externalReferenceId: 'order-1043', amountCaptured: 3000, capturedAt: '2026-11-27T23:58:12.004Z' },
  ],
  mandateConsent: null,
};

const money = int32(0, MAX_AMOUNT);
/** The most records of each kind a draft lists (a page). */
export const LISTED = 100;

export const evidenceDraftSchema = z
  .strictObject({
    disputeId: z.uuid(),
    reason: disputeReasonSchema,
    evidence: z
      .strictObject({
        explanation: z.string().meta({ description: 'An account of the payment from the records: edit it, then post it to the evidence operation.' }),
        serviceDate: z.string().meta({ description: 'The day of the capture (UTC), YYYY-MM-DD.' }),
        receiptReference: z.string().meta({ description: "The intent's externalReferenceId (Toast's Payment ID and Check ID)." }),
        customerEmail: z.string().nullable().meta({ description: "The intent's e-mail; null when none (or erased)." }),
        documentTypesNeeded: z
          .array(evidenceDocumentTypeSchema)
          .max(EVIDENCE_DOCUMENT_TYPE_COUNT)
          .meta({ description: 'The document types that win a dispute of this reason in the sandbox.' }),
      })
      .meta({ description: 'Fields to post to the evidence operation (never posted by the service).' }),
    payment: z.strictObject({
      id: z.uuid(),
      externalReferenceId: z.string(),
      amountCaptured: money,
      tip: money,
      currency: z.string(),
      capturedAt: z.string(),
      card: z.strictObject({ brand: z.string(), lastFour: z.string() }).nullable(),
    }),
    refunds: z
      .array(z.strictObject({ id: z.uuid(), amount: money, status: z.string(), createdAt: z.string() }))
      .max(LISTED)
      .meta({ description: 'Its refunds (for a credit not processed), newest first.' }),
    sameAmountWithinADay: z
      .array(z.strictObject({ id: z.uuid(), externalReferenceId: z.string(), amountCaptured: money, capturedAt: z.string() }))
      .max(LISTED)
      .meta({ description: "The customer's other captured payments of the same amount made within a day of it: for a duplicate, the distinct orders." }),
    mandateConsent: z
      .strictObject({ mandateId: z.uuid(), textVersion: z.string(), acceptedAt: z.string(), channel: z.string().nullable() })
      .nullable()
      .meta({ description: "For a merchant-initiated charge: the mandate's recorded consent (what text, when, how). Null otherwise." }),
  })
  .meta({ id: 'DisputeEvidenceDraft', example: EXAMPLE });

export type EvidenceDraft = z.infer<typeof evidenceDraftSchema>;
