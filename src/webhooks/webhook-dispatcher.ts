import type { Knex } from 'knex';
import { toEventResponse } from '../events/events.schemas';
import type { Logger } from '../platform/logger';
import { claimDueDeliveries, fanOutEvents, recordAttempt, type ClaimedDelivery } from './webhook-deliveries.repository';
import { updateEndpoint } from './webhook-endpoints.repository';
import { sendWebhook, type SendOutcome } from './webhook-sender';
import { webhookHeaders } from './webhook-signature';

export interface DispatcherSettings {
  /** Seconds before each retry (WEBHOOK_RETRY_SCHEDULE); one attempt plus one per entry. */
  retryScheduleSeconds: readonly number[];
  timeoutMs: number;
  pollIntervalMs: number;
  /** Deliveries in flight in this process (at most 4 of them to one endpoint). */
  concurrency: number;
  /** An endpoint failing every attempt for this long is disabled. */
  disableAfterMs: number;
  allowPrivateTargets: boolean;
}

/** In flight to one endpoint from one process: a slow endpoint holds at most these slots, never all of them. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;
const FAN_OUT_BATCH = 200;
/** ±10 %, so that retries of many deliveries failed together do not all come back at once. */
const JITTER = 0.1;

/**
 * Delivers events to webhook endpoints, in every replica at once: it fans new
 * events out to deliveries and attempts the due ones, both taken with `for
 * update skip locked`, so no event is fanned out twice and no delivery is
 * attempted by two replicas. It runs beside the API, never inside a request:
 * an answer is sent before any delivery of its events starts, and a slow
 * endpoint holds only its own slots. At least once: a replica that dies
 * mid-attempt leaves the delivery leased, and it is attempted again when the
 * lease (the timeout and a margin) runs out.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private ticking = false;
  /** The last look found due work: more may be waiting, so a freed slot looks again at once rather than at the next poll. */
  private backlog = false;
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly settings: DispatcherSettings,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking for work and waits for the attempts in flight (each ends within the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.attempts]);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  /** Looks for work now rather than at the next poll, unless a look is under way. */
  private wake(): void {
    if (!this.ticking) this.schedule(0);
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    try {
      while ((await fanOutEvents(this.db, FAN_OUT_BATCH)) === FAN_OUT_BATCH && !this.stopped);
      const limit = this.settings.concurrency - this.attempts.size;
      const claimed = await claimDueDeliveries(this.db, {
        limit,
        perEndpoint: MAX_IN_FLIGHT_PER_ENDPOINT,
        busy: this.inFlight,
        leaseMs: this.settings.timeoutMs + 30_000,
      });
      this.backlog = claimed.length > 0;
      for (const delivery of claimed) this.track(delivery);
    } catch (error) {
      this.backlog = false;
      this.logger.warn({ err: error }, 'webhook dispatch failed; will retry');
    } finally {
      this.ticking = false;
      this.schedule(this.settings.pollIntervalMs);
    }
  }

  private track(delivery: ClaimedDelivery): void {
    const endpointId = delivery.endpoint.id;
    this.inFlight.set(endpointId, (this.inFlight.get(endpointId) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) => this.logger.warn({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed; the lease will bring it back'))
      .finally(() => {
        this.attempts.delete(attempt);
        const left = (this.inFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(endpointId);
        else this.inFlight.set(endpointId, left);
        if (this.backlog) this.wake();
      });
    this.attempts.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { event, endpoint } = delivery;
    const body = JSON.stringify(toEventResponse(event));
    const now = Date.now();
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret !== null && (endpoint.previousSecretExpiresAt?.getTime() ?? 0) > now) secrets.push(endpoint.previousSecret);
    const sent = await sendWebhook(endpoint.url, webhookHeaders(secrets, event.id, Math.floor(now / 1000), body), body, {
      timeoutMs: this.settings.timeoutMs,
      allowPrivate: this.settings.allowPrivateTargets,
    });
    const next = this.nextStep(delivery, sent);
    await recordAttempt(this.db, delivery, { ...sent, outcome: sent.ok ? 'SUCCEEDED' : 'FAILED' }, next);
    const log = { endpointId: endpoint.id, eventId: event.id, deliveryId: delivery.id, attempt: delivery.attempt, statusCode: sent.statusCode, durationMs: sent.durationMs };
    if (sent.ok) {
      this.logger.debug(log, 'webhook delivered');
      return;
    }
    this.logger.info({ ...log, error: sent.error, next: next.status, retryAt: next.retryAt }, 'webhook attempt failed');
    if (sent.statusCode === 410) {
      await updateEndpoint(this.db, delivery.locationId, endpoint.id, { status: 'DISABLED', disabledReason: 'GONE' });
      this.logger.warn({ endpointId: endpoint.id }, 'webhook endpoint answered 410 Gone: disabled');
    } else if (endpoint.failingSince !== null && now - endpoint.failingSince.getTime() >= this.settings.disableAfterMs) {
      await updateEndpoint(this.db, delivery.locationId, endpoint.id, { status: 'DISABLED', disabledReason: 'FAILING' });
      this.logger.warn({ endpointId: endpoint.id, failingSince: endpoint.failingSince }, 'webhook endpoint failing every attempt: disabled');
    }
  }

  /** Delivered; or failed for good (a 410, or the schedule is spent); or retried after the schedule's next delay, with jitter. */
  private nextStep(delivery: ClaimedDelivery, sent: SendOutcome): { status: 'SUCCEEDED' | 'FAILED' | 'PENDING'; retryAt?: Date } {
    if (sent.ok) return { status: 'SUCCEEDED' };
    const delaySeconds = this.settings.retryScheduleSeconds[delivery.attempt - 1];
    if (sent.statusCode === 410 || delaySeconds === undefined) return { status: 'FAILED' };
    const jitter = 1 + JITTER * (2 * Math.random() - 1);
    return { status: 'PENDING', retryAt: new Date(Date.now() + delaySeconds * 1000 * jitter) };
  }
}
