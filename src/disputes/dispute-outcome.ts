import type { DisputeEvidence, EvidenceDocumentType } from './dispute-record';
import type { DisputeReason } from './dispute-status';

/**
 * The sandbox issuer's rule at a dispute's decision, written once
 * (docs/disputes.md renders it): Stripe's test words in the explanation
 * first, then the document the reason needs (Toast's "a legible signed copy
 * of the check" for a fraud or a meal not received).
 */
export const WINNING_WORD = 'winning_evidence';
export const LOSING_WORD = 'losing_evidence';

export const EVIDENCE_A_REASON_NEEDS: Record<DisputeReason, readonly EvidenceDocumentType[]> = {
  FRAUDULENT: ['receipt', 'customer_signature'],
  PRODUCT_NOT_RECEIVED: ['receipt', 'customer_signature'],
  DUPLICATE: ['invoice_showing_distinct_transactions'],
  SUBSCRIPTION_CANCELED: ['recurring_transaction_agreement', 'cancellation_policy'],
  PRODUCT_UNACCEPTABLE: ['service_documentation', 'refund_policy'],
  CREDIT_NOT_PROCESSED: ['refund_policy', 'customer_communication'],
  UNRECOGNIZED: ['receipt', 'customer_signature'],
  GENERAL: ['receipt', 'customer_communication', 'service_documentation'],
};

/** The document types that win a dispute of `reason` in the sandbox: what an evidence draft asks for. */
export function evidenceTypesFor(reason: DisputeReason): readonly EvidenceDocumentType[] {
  return EVIDENCE_A_REASON_NEEDS[reason];
}

/** The sandbox issuer's decision on a dispute's submitted evidence. */
export function sandboxOutcome(reason: DisputeReason, evidence: DisputeEvidence): 'WON' | 'LOST' {
  const explanation = evidence.explanation ?? '';
  if (explanation.includes(LOSING_WORD)) return 'LOST';
  if (explanation.includes(WINNING_WORD)) return 'WON';
  const needed = EVIDENCE_A_REASON_NEEDS[reason];
  return (evidence.documents ?? []).some((document) => needed.includes(document.type)) ? 'WON' : 'LOST';
}

/** The rule as Markdown, for docs/disputes.md and the document. */
export function outcomeRuleTable(): string {
  return [
    `At \`decisionExpectedBy\` the sandbox's issuer decides: an explanation holding \`${LOSING_WORD}\` loses and one holding \`${WINNING_WORD}\` wins (Stripe's test words); otherwise the dispute is won when its evidence holds a document of a type its reason needs, and lost when not. The sandbox's decide helper forces either at once.`,
    '',
    '| Reason | Documents that win it |',
    '|---|---|',
    ...Object.entries(EVIDENCE_A_REASON_NEEDS).map(([reason, types]) => `| \`${reason}\` | ${types.map((type) => `\`${type}\``).join(', ')} |`),
  ].join('\n');
}
