import { defineModule } from '../../api/module';
import { SandboxClocks } from '../../platform/clock/sandbox-clocks';
import { SandboxClockFlow } from './sandbox-clock.flow';
import { sandboxClockOperations } from './sandbox-clock.operations';
import { sandboxClockSweep } from './sandbox-clock-sweep';

/**
 * Each location's sandbox clock, only while the sandbox processor is in
 * use: it runs every module's timed rules (given by the registry: it is the
 * last module) for one location on its clock, on each advance and on every
 * advanced clock between.
 */
export const sandboxClockModule = defineModule({
  key: 'sandboxClock',
  folder: 'flows/sandbox-clock',
  layer: 'flow',
  build: ({ db, processor, settings }, timedRules) =>
    processor.name === 'sandbox' ? new SandboxClockFlow(new SandboxClocks(db, settings.sandboxClockCacheMs), timedRules) : undefined,
  operations: sandboxClockOperations,
  background: (clock, { db, logger }) => (clock === undefined ? [] : [sandboxClockSweep(db, clock, logger)]),
});
