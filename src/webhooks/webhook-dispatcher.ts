import type { Knex } from 'knex';
import { onEventsRecorded } from '../change-log/events-recorded';
import { toEventResponse } from '../change-log/event-schema';
import { poolIsBusy } from '../platform/db/pool-pressure';
import type { Logger } from '../platform/logger';
import { AttemptRecorder } from './attempt-recorder';
import { claimDueDeliveries, fanOutEvents, type ClaimedDelivery } from './webhook-deliveries.repository';
import { updateEndpoint } from './webhook-endpoints.repository';
import { sendWebhook, type SendOutcome } from './webhook-sender';
import { webhookHeaders } from './webhook-signature';
import type { WebhookDeliverySettings } from '../api/service-settings';

/** The settings of WEBHOOK_*, declared with the others a module is given. */
export type DispatcherSettings = WebhookDeliverySettings;

/** In flight to one endpoint from one process: a slow endpoint holds at most these slots, never all of them. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;
const FAN_OUT_BATCH = 200;
/**
 * How long after an event is committed in this process the dispatcher looks:
 * the signal comes after the commit (change-log/record-events.ts), so the wait
 * only gathers a burst of writes into one look; short enough to be no lag
 * worth naming.
 */
const WAKE_AFTER_RECORD_MS = 50;
/**
 * The same wait while requests wait for a database connection or hold every
 * one: the look then gathers more writes and queues for a connection behind
 * the requests already waiting, so the API goes first, yet events leave
 * within a fraction of a second rather than at the next poll.
 */
const WAKE_WHILE_BUSY_MS = 100;
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
  /** Attempts answered whose records are being written. */
  private readonly settling = new Set<Promise<void>>();
  /** Events were recorded while a look was under way: look again once it ends. */
  private recordedDuringTick = false;
  private soon: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly recorder: AttemptRecorder;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly settings: DispatcherSettings,
  ) {
    this.recorder = new AttemptRecorder(db);
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = onEventsRecorded(() => this.lookSoon());
    this.schedule(0);
  }

  /** Stops looking for work and waits for the attempts in flight (each ends within the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    clearTimeout(this.soon);
    await Promise.allSettled([...this.attempts]);
    await Promise.allSettled([...this.settling]);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  /**
   * Events were recorded in this process: a look shortly (one for a burst of
   * them), later while the pool is busy, or right after the one under way.
   */
  private lookSoon(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.recordedDuringTick = true;
      return;
    }
    if (this.soon !== undefined) return;
    this.soon = setTimeout(
      () => {
        this.soon = undefined;
        if (!this.ticking) this.schedule(0);
        else this.recordedDuringTick = true;
      },
      poolIsBusy(this.db) ? WAKE_WHILE_BUSY_MS : WAKE_AFTER_RECORD_MS,
    );
    this.soon.unref();
  }

  /** Looks for work now rather than at the next poll, unless a look is under way. */
  private wake(): void {
    if (!this.ticking) this.schedule(0);
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    this.recordedDuringTick = false;
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
      this.schedule(this.recordedDuringTick ? WAKE_AFTER_RECORD_MS : this.settings.pollIntervalMs);
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
        // Claims in batches: a claim per finished attempt cost PostgreSQL more than the attempt (measured with the bench's mix).
        if (this.backlog && this.attempts.size <= this.settings.concurrency / 2) this.wake();
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
    // The slot is free once the answer is in; the record follows in its batch (the lease keeps the delivery from other claims meanwhile).
    const settling = this.settle(delivery, sent, next)
      .catch((error: unknown) => this.logger.warn({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed; the lease will bring it back'))
      .finally(() => this.settling.delete(settling));
    this.settling.add(settling);
  }

  /** Records an attempt's outcome, then what it means for its endpoint: a 410, or failing for too long, disables it. */
  private async settle(delivery: ClaimedDelivery, sent: SendOutcome, next: ReturnType<WebhookDispatcher['nextStep']>): Promise<void> {
    const { event, endpoint } = delivery;
    const now = Date.now();
    await this.recorder.record({ delivery, result: { ...sent, outcome: sent.ok ? 'SUCCEEDED' : 'FAILED' }, next });
    const log = {
      endpointId: endpoint.id,
      eventId: event.id,
      deliveryId: delivery.id,
      attempt: delivery.attempt,
      statusCode: sent.statusCode,
      durationMs: sent.durationMs,
    };
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
