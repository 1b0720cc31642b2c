/**
 * The document's groups of operations, in reading order, each with what a
 * reader finds there. An operation names one of these (`tag` is typed by
 * this list, so an undeclared group fails to compile); the document's
 * top-level `tags` is this list, so tools that sort and describe by it
 * (Redoc, Swagger UI, Scalar) show every group.
 */
export const API_TAGS = [
  { name: 'Customers', description: 'Payor records.' },
  { name: 'Payment methods', description: 'Cards saved to a customer, and the default card per context name.' },
  { name: 'Payment intents', description: 'Intents to pay, and the session secrets of the browser-side reads.' },
  {
    name: 'Setup intents',
    description:
      "A card saved without a payment: verified for $0 at the processor, saved to the customer and, for OFF_SESSION usage, made a mandate with the payor's recorded consent, in one step.",
  },
  { name: 'Refunds', description: 'Money given back on a captured payment intent, whole or in parts.' },
  {
    name: 'Disputes',
    description:
      'Inquiries and chargebacks of captured payments, from opening to decision on the location’s clock, with evidence and their money in the ledger.',
  },
  { name: 'Mandates', description: "A payor's recorded consent to be charged later, off-session, on a saved card." },
  { name: 'Events', description: 'The change log: one event per change, written in the transaction that made it.' },
  { name: 'Webhooks', description: 'Endpoints the events are delivered to, signed to the Standard Webhooks specification, and their deliveries.' },
  {
    name: 'Settlement',
    description: "Where money lands: the location's business days (closed at its cutoff), the ledger line of every money movement, batches and payouts.",
  },
  { name: 'Sandbox clock', description: "A location's own clock under the sandbox processor, moved forward to test time windows." },
  { name: 'Authentication', description: 'Tokens and the keys that verify them.' },
  { name: 'Operations', description: 'Probes for orchestrators and load balancers. Metrics are on their own port (METRICS_PORT).' },
  { name: 'Documentation', description: 'This document.' },
] as const;

export type ApiTag = (typeof API_TAGS)[number]['name'];
