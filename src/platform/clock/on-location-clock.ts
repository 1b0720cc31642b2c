import type { RequestHandler } from 'express';
import { inClock } from './location-clock';
import type { SandboxClocks } from './sandbox-clocks';

/**
 * The rest of a /v1 request runs on its location's sandbox clock
 * (location-clock.ts). Installed only while the sandbox processor is in use:
 * otherwise requests run on real time and nothing is looked up.
 */
export function onLocationClock(clocks: SandboxClocks): RequestHandler {
  return (request, _response, next) => {
    const locationId = request.locationId as string;
    const fresh = clocks.freshOffsetOf(locationId);
    if (fresh !== undefined) return inClock(fresh, () => next());
    // The promise is answered to the caller (in-order.ts), which passes a rejection to the error handler.
    return clocks.offsetOf(locationId).then((offsetMs) => inClock(offsetMs, () => next()));
  };
}
