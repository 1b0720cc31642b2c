import { defineModule } from '../../api/module';
import { refundOperations } from './refund.operations';
import { RefundFlow } from './refund.flow';
import { LEFT_ALONE_SECONDS, REFUND_SWEEP_MS } from './refund-sweeps';

/**
 * Refunds made and settled: POST …/refunds, and the rule that asks about
 * PENDING refunds again (answered later by the processor, or whose answer
 * was lost). Each refund's move is guarded and each processor call keyed by
 * the refund's id, so a refund moves, and its event is recorded, once.
 */
export const refundModule = defineModule({
  key: 'refund',
  folder: 'flows/refunds',
  layer: 'flow',
  build: ({ processor, logger, settings }) => new RefundFlow(processor, logger, { refundWindowDays: settings.refundWindowDays }),
  operations: refundOperations,
  timedRules: (refund) => [
    {
      what: 'PENDING refunds settled',
      everyMs: REFUND_SWEEP_MS,
      atStart: true,
      // On real time a refund its own request is still settling is left to it; on an advanced clock every one is
      // asked about, however recent: the clock has just moved past its time.
      run: (db, locationId) => refund.settlePending(db, locationId === undefined ? LEFT_ALONE_SECONDS : 0, locationId),
    },
  ],
});
