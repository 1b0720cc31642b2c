/**
 * A signal inside one process: events were recorded and committed
 * (record-events.ts sends it after the commit, only when an event was
 * recorded). The webhook dispatcher of the same process listens, so that an
 * event is fanned out and delivered within milliseconds of its commit
 * instead of at the next poll; events recorded by another replica are found
 * by that poll (WEBHOOK_POLL_INTERVAL_MS), or by that replica's own
 * dispatcher at once.
 */
type Listener = () => void;

const listeners = new Set<Listener>();

export function onEventsRecorded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function eventsRecorded(): void {
  for (const listener of listeners) listener();
}
