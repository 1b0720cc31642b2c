import { defineModule } from '../api/module';
import { disputesOperations } from './disputes.operations';
import { DisputesService } from './disputes.service';

/** How often each replica moves disputes whose deadline, decision or withdrawal has come, on real time. */
const DISPUTE_SWEEP_MS = 60_000;
/** How often the sandbox's dispute cards are looked at: a dispute opens within seconds of its time. */
const SANDBOX_CARD_SWEEP_MS = 5_000;

/**
 * Disputes, one home (docs/disputes.md): read, evidenced, accepted, and
 * moved on the location's clock (the deadline, the decision, a chargeback's
 * withdrawal), with the sandbox's dispute cards and helpers. A dispute's
 * money is held on its intent and written to the ledger in its move's
 * transaction.
 */
export const disputesModule = defineModule({
  key: 'disputes',
  folder: 'disputes',
  layer: 'feature',
  reaches: ['payment-intents', 'settlement'],
  tables: ['disputes'],
  crossings: [
    {
      table: 'payment_intents',
      why: "A chargeback's amount is held on its intent in the same guarded update as a refund's (refunded plus disputed never passes captured, whatever races), and the sandbox's dispute cards are found by a partial index of captured intents.",
    },
  ],
  build: ({ logger, processor }) => new DisputesService(logger, processor.name === 'sandbox'),
  operations: disputesOperations,
  timedRules: (disputes, { processor }) => [
    ...(processor.name === 'sandbox'
      ? [{ what: "sandbox dispute cards' disputes opened", everyMs: SANDBOX_CARD_SWEEP_MS, atStart: false, run: disputes.openForSandboxCards.bind(disputes) }]
      : []),
    // Before the funds: an inquiry past its deadline becomes a chargeback whose funds are then due.
    { what: 'disputes past their deadline moved', everyMs: DISPUTE_SWEEP_MS, atStart: true, run: disputes.passDeadlines.bind(disputes) },
    { what: 'disputes decided', everyMs: DISPUTE_SWEEP_MS, atStart: true, run: disputes.decideDue.bind(disputes) },
    { what: "chargebacks' funds withdrawn", everyMs: DISPUTE_SWEEP_MS, atStart: true, run: disputes.withdrawDue.bind(disputes) },
  ],
});
