import type { Knex } from 'knex';
import { poolIsBusy } from '../../platform/db/pool-pressure';
import { RepeatingTask } from '../../platform/lifecycle/repeating-task';
import type { Logger } from '../../platform/logger';
import type { SandboxClockFlow } from './sandbox-clock.flow';

/** As often as the capture window's own sweep: an advanced location's rules run as soon on its clock as others' on real time. */
const SANDBOX_CLOCK_SWEEP_MS = 3_000;

/**
 * The time-bound rules of every advanced location, run on its own clock:
 * the sweeps across locations read real time, which is behind such a
 * location's. Every replica runs it; each move is guarded, so a rule acts once.
 */
export function sandboxClockSweep(db: Knex, clock: SandboxClockFlow, logger: Logger): { start(): void; stop(): Promise<void> } {
  const task = new RepeatingTask(logger, 'advanced sandbox clocks swept', SANDBOX_CLOCK_SWEEP_MS, async () => {
    if (poolIsBusy(db)) return 0;
    const advanced = await clock.clocks.advanced();
    for (const { locationId, offsetMs } of advanced) await clock.runRules(db, locationId, offsetMs);
    return advanced.length;
  });
  return {
    start: () => task.start({ atStart: false }),
    stop: () => task.stop(),
  };
}
