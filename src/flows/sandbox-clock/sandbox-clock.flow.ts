import type { Knex } from 'knex';
import { clockNow, inClock } from '../../platform/clock/location-clock';
import type { SandboxClocks } from '../../platform/clock/sandbox-clocks';
import { DomainError } from '../../platform/errors/domain-error';
import type { TimedRule } from '../../api/module';

/** A location's clock as the API answers it. */
export interface ClockReading {
  now: Date;
  offsetSeconds: number;
}

/** Enough turns of a rule for every batch it finds due: each turn takes a hundred and the next finds the rest. */
const MAX_TURNS = 100;

/**
 * The sandbox clock of a location (docs/cards-on-file.md): its reading, its
 * advance, and the time-bound rules run on it (the capture window, the
 * recovery of PROCESSING, the intents' expiry, the sandbox's refunds
 * answered later), every module's timed rules (src/modules.ts), so that
 * this flow needs none of the flows and features that own them. An advance answers once every rule due
 * by the new time has run for that location; between advances the same
 * rules run on every advanced clock every few seconds (sandbox-clock-sweep.ts).
 */
export class SandboxClockFlow {
  constructor(
    readonly clocks: SandboxClocks,
    readonly rules: readonly TimedRule[],
  ) {}

  async read(locationId: string): Promise<ClockReading> {
    const offsetMs = await this.clocks.offsetOf(locationId);
    return inClock(offsetMs, () => ({ now: clockNow(), offsetSeconds: Math.floor(offsetMs / 1000) }));
  }

  /** Moves the clock `seconds` ahead, unless that takes it past `maxOffsetSeconds` ahead of real time (400 naming `seconds`). */
  async advance(db: Knex, locationId: string, seconds: number, maxOffsetSeconds: number): Promise<ClockReading> {
    // The rules run while the advance waits for every replica's remembered offset to expire.
    const offsetMs = await this.clocks.advance(locationId, seconds, maxOffsetSeconds, (offset) => this.runRules(db, locationId, offset));
    if (offsetMs === undefined) {
      throw new DomainError('VALIDATION_FAILED', {
        fieldName: 'seconds',
        message: `The clock may be at most ${maxOffsetSeconds} seconds (a century) ahead of real time, all advances together.`,
      });
    }
    return inClock(offsetMs, () => ({ now: clockNow(), offsetSeconds: Math.floor(offsetMs / 1000) }));
  }

  /** Every rule due at the location's time, run on its clock, until none finds more. */
  runRules(db: Knex, locationId: string, offsetMs: number): Promise<void> {
    return inClock(offsetMs, async () => {
      for (const rule of this.rules) {
        for (let turn = 0; turn < MAX_TURNS && (await rule.run(db, locationId)) > 0; turn += 1);
      }
    });
  }
}
