import { defineModule } from '../api/module';
import { settlementOperations } from './settlement.operations';
import { SettlementService } from './settlement.service';

/** How often each replica looks for business days to close and payouts to move on, on real time. */
const CLOSE_SWEEP_MS = 60_000;

/**
 * Where money lands: the location's settings, the ledger (one line per
 * money movement, written by the movement's own statement), its business
 * days' batches and their payouts (docs/settlement.md).
 */
export const settlementModule = defineModule({
  key: 'settlement',
  folder: 'settlement',
  layer: 'feature',
  reaches: [],
  tables: ['location_settings', 'ledger_lines', 'ledger_batches', 'payouts'],
  build: ({ processor, settings }) => new SettlementService({ currencies: settings.paymentCurrencies, sandbox: processor.name === 'sandbox' }),
  operations: settlementOperations,
  timedRules: (settlement) => [
    // A day closes within a minute of its cutoff on real time; on a sandbox clock, on each advance past it.
    { what: 'business days closed', everyMs: CLOSE_SWEEP_MS, atStart: true, run: (db, locationId) => settlement.closeDue(db, locationId) },
    { what: 'payouts moved on', everyMs: CLOSE_SWEEP_MS, atStart: true, run: (db, locationId) => settlement.movePayouts(db, locationId) },
  ],
});
