import { z } from 'zod';
import { operationsOf } from '../../api/operation';
import { SCOPE } from '../../auth/scopes';
import { DomainError } from '../../platform/errors/domain-error';
import { int32 } from '../../platform/validation/int32';
import type { ClockReading, SandboxClockFlow } from './sandbox-clock.flow';

/** A year: the longest single advance. */
const MAX_ADVANCE_SECONDS = 31_536_000;
/** A century: how far ahead of real time a clock may be, all advances together. */
export const MAX_OFFSET_SECONDS = 100 * MAX_ADVANCE_SECONDS;

const clockSchema = z
  .strictObject({
    now: z.string().meta({ description: "The location's time: real time plus `offsetSeconds`. ISO 8601 UTC with milliseconds, ending in Z." }),
    offsetSeconds: z
      .int()
      .min(0)
      .max(MAX_OFFSET_SECONDS)
      .meta({ format: 'int64', description: 'How far the clock has been advanced; 0 for a location never advanced. At most a century.' }),
  })
  .meta({ id: 'SandboxClock', example: { now: '2026-12-23T18:30:07.123Z', offsetSeconds: 2_592_000 } });

const advanceRequestSchema = z
  .strictObject({
    seconds: int32(1, MAX_ADVANCE_SECONDS).meta({
      description: 'How far to move the clock ahead: 1 to 31,536,000 (a year); all advances together at most a century. It never goes back.',
    }),
  })
  .meta({ id: 'AdvanceSandboxClockRequest', example: { seconds: 2_592_000 } });

const toClock = (reading: ClockReading) => ({ now: reading.now.toISOString(), offsetSeconds: reading.offsetSeconds });

/** The clock exists only with the sandbox processor: with a real one, 404 as for any path that is not there. */
function sandboxOnly(clock: SandboxClockFlow | undefined): SandboxClockFlow {
  if (clock === undefined) throw new DomainError('ROUTE_NOT_FOUND');
  return clock;
}

const operation = operationsOf<{ sandboxClock: SandboxClockFlow | undefined }>();
const tag = 'Sandbox clock';
const WHAT =
  "Not in the spec; only while the sandbox processor is in use (404 otherwise). The location's own clock: every time the service writes or compares for the location (new records' timestamps, the capture window, intents' expiry, the refund window, the sandbox's late refunds, session secrets' lifetime, business days, disputes' deadlines) reads it, so a time window can be tested without waiting. Other locations keep real time.";

export const getSandboxClock = operation({
  method: 'get',
  path: '/v1/sandbox/clock',
  operationId: 'getSandboxClock',
  tag,
  summary: "Read the location's sandbox clock",
  description: WHAT,
  access: { scope: SCOPE.serverWrite },
  responses: { 200: { description: 'The clock.', schema: clockSchema } },
  errors: ['ROUTE_NOT_FOUND'],
  handle: async ({ location }, { sandboxClock }) => ({ status: 200, body: toClock(await sandboxOnly(sandboxClock).read(location)) }),
});

export const advanceSandboxClock = operation({
  method: 'post',
  path: '/v1/sandbox/clock/advance',
  operationId: 'advanceSandboxClock',
  tag,
  summary: "Move the location's sandbox clock ahead",
  description: `${WHAT} Answers once every rule due by the new time has run for the location: authorizations past their capture window voided, intents left PROCESSING settled, unpaid intents past INTENT_EXPIRY_HOURS expired, late refunds settled, the sandbox's dispute cards disputed, disputes past their deadline or due for a decision moved, chargebacks' funds withdrawn, business days closed and payouts moved on. Concurrent advances add up.`,
  access: { scope: SCOPE.serverWrite },
  body: { schema: advanceRequestSchema },
  responses: { 200: { description: 'The clock after the advance, its rules run.', schema: clockSchema } },
  errors: ['ROUTE_NOT_FOUND'],
  handle: async ({ db, location, body }, { sandboxClock }) => ({
    status: 200,
    body: toClock(await sandboxOnly(sandboxClock).advance(db, location, body.seconds, MAX_OFFSET_SECONDS)),
  }),
});

export const sandboxClockOperations = [getSandboxClock, advanceSandboxClock];
