import { defineModule } from '../api/module';
import { LEFT_ALONE_SECONDS, REFUND_SWEEP_MS } from './refund-sweeps';
import { refundsOperations } from './refunds.operations';
import { RefundsService } from './refunds.service';

/**
 * Refunds, one home: made (asking the processor), settled, read and listed,
 * and the rule that asks about PENDING refunds again (answered later by the
 * processor, or whose answer was lost). Each refund's move is guarded and
 * each processor call keyed by the refund's id, so a refund moves, and its
 * event is recorded, once.
 */
export const refundsModule = defineModule({
  key: 'refunds',
  folder: 'refunds',
  layer: 'feature',
  reaches: ['payment-intents', 'settlement', 'disputes'],
  tables: ['refunds'],
  crossings: [
    {
      table: 'payment_intents',
      why: "A refund's amount is taken from its intent's refundable amount, and a failed one given back, in the statement that makes or settles the refund: refunded plus disputed never passes captured, whatever races.",
    },
  ],
  build: ({ processor, logger, settings }) => new RefundsService(processor, logger, { refundWindowDays: settings.refundWindowDays }),
  operations: refundsOperations,
  timedRules: (refunds) => [
    {
      what: 'PENDING refunds settled',
      everyMs: REFUND_SWEEP_MS,
      atStart: true,
      // On real time a refund its own request is still settling is left to it; on an advanced clock every one is
      // asked about, however recent: the clock has just moved past its time.
      run: (db, locationId) => refunds.settlePending(db, locationId === undefined ? LEFT_ALONE_SECONDS : 0, locationId),
    },
  ],
});
