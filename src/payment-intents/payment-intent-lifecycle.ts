import { FINAL_STATUSES, PAYMENT_INTENT_STATUSES, PAYMENT_INTENT_TRANSITIONS } from './payment-intent-status';

/** The currencies the committed document shows: the service's default list. */
export const DOCUMENTED_CURRENCIES = ['USD', 'CAD'] as const;

/** The status table of payment-intent-status.ts, as Markdown for the document. */
export function paymentIntentLifecycle(): string {
  const rows = PAYMENT_INTENT_STATUSES.map((status) => {
    const next = PAYMENT_INTENT_TRANSITIONS[status];
    return `| ${status} | ${next.length === 0 ? '(final)' : next.join(', ')} |`;
  });
  return [
    'A payment intent is created in REQUIRES_PAYMENT_METHOD. In this service only create and cancel move an intent; the other moves belong to the payment processor and are listed so that every status read back is explainable.',
    '',
    '| Status | May move to |',
    '|---|---|',
    ...rows,
    '',
    `Cancel is allowed from every status that may move to CANCELED; from ${FINAL_STATUSES.join(' or ')} it answers 409 (code 3002) naming the current status.`,
  ].join('\n');
}
