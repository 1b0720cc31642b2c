import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { clockNow } from '../platform/clock/location-clock';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import type {
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  PaymentError,
  PaymentProcessor,
  RefundOutcome,
  RefundRequest,
  VerifyOutcome,
  VerifyRequest,
  VoidOutcome,
  VoidRequest,
} from './payment-processor';
import {
  CAPTURE_FAILED,
  CAPTURE_FAILS_LAST_FOUR,
  isProcessingError,
  OVERCAPTURE_FAILS_LAST_FOUR,
  PARTIAL_AUTHORIZATION_LAST_FOUR,
  PARTIAL_AUTHORIZATION_LIMIT,
  REFUND_DECLINED,
  REFUND_FAILS_LAST_FOUR,
  REFUND_LATER_LAST_FOUR,
  SANDBOX_CARDS,
  sandboxDecline,
} from './sandbox-cards';

export interface SandboxSettings {
  /** SANDBOX_LATENCY_MS: how long each answer takes, after it is decided (so a crash can fall between the two). */
  latencyMs: number;
  /** How long a refund answered later (REFUND_LATER_LAST_FOUR) stays pending; none when omitted. */
  refundSettlesAfterMs?: number;
}

// Its statements, prepared: a capture asks four of them, and the sandbox stands in for a processor's own latency, not for Knex's CPU.
const REPLAY = preparedStatement('sandbox_replay', 'select outcome from sandbox_processor_operations where location_id = ? and idempotency_key = ?');
const AUTHORIZATION = preparedStatement(
  'sandbox_authorization',
  `select state, capture_fails, overcapture_fails, amount, captured_amount from sandbox_processor_operations
    where location_id = ? and idempotency_key = ? and operation = 'authorize' and state is not null`,
);
const MOVE_AUTHORIZATION = preparedStatement(
  'sandbox_move_authorization',
  `update sandbox_processor_operations set state = ?, captured_amount = ?
    where location_id = ? and idempotency_key = ? and operation = 'authorize' and state = 'authorized'
    returning 1`,
);
const REMEMBER = preparedStatement(
  'sandbox_remember',
  `insert into sandbox_processor_operations
     (location_id, idempotency_key, operation, amount, outcome, state, capture_fails, overcapture_fails, captured_amount, settles_at)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
   on conflict (location_id, idempotency_key) do nothing
   returning outcome`,
);
/** A pending refund whose time has come is done: asked again, it answers succeeded. */
const SETTLE_REFUND = preparedStatement(
  'sandbox_settle_refund',
  `update sandbox_processor_operations set outcome = ?, settles_at = null
    where location_id = ? and idempotency_key = ? and operation = 'refund' and settles_at <= ?
    returning 1`,
);

type Operation = 'authorize' | 'capture' | 'void' | 'refund' | 'verify';
type AuthorizationState = 'authorized' | 'captured' | 'voided';

const NO_CAPTURE: PaymentError = {
  code: 'charge_not_captured',
  declineCode: null,
  message: 'The processor holds no captured payment by this reference.',
};

const NO_AUTHORIZATION: PaymentError = {
  code: 'authorization_not_found',
  declineCode: null,
  message: 'The processor holds no approved authorization by this reference.',
};

/**
 * A processor for development and tests that behaves like one: it decides by
 * the card's last four digits (sandbox-cards.ts), keeps what it answered for
 * each idempotency key and an authorization's state (authorized, captured,
 * voided) in its own table, so that a key asked again replays its answer,
 * a voided authorization cannot be captured and a captured one cannot be
 * voided, across processes and replicas. Stripe's test mode does the same;
 * stripe-mock does not (it is stateless by choice), which is why this one is
 * not a mock. The reference of an authorization is its idempotency key.
 */
export class SandboxProcessor implements PaymentProcessor {
  readonly name = 'sandbox';

  constructor(
    private readonly db: Knex,
    private readonly settings: SandboxSettings,
    private readonly now: () => Date = clockNow,
  ) {}

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    const captureFails = request.card.lastFour === CAPTURE_FAILS_LAST_FOUR;
    const { amount, decline } = this.decide(request);
    const outcome: AuthorizeOutcome =
      decline !== undefined
        ? { status: isProcessingError(decline) ? 'failed' : 'declined', error: decline }
        : request.capture && captureFails
          ? { status: 'failed', error: CAPTURE_FAILED }
          : { status: 'approved', reference: request.idempotencyKey, captured: request.capture, amount };
    const state: AuthorizationState | null = outcome.status !== 'approved' ? null : request.capture ? 'captured' : 'authorized';
    const answered = await this.remember({ ...request, amount }, 'authorize', outcome, {
      state,
      captureFails,
      // A card with a balance (PARTIAL_AUTHORIZATION_LAST_FOUR) takes no more than it authorized, as OVERCAPTURE_FAILS_LAST_FOUR.
      overcaptureFails: request.card.lastFour === OVERCAPTURE_FAILS_LAST_FOUR || request.card.lastFour === PARTIAL_AUTHORIZATION_LAST_FOUR,
      capturedAmount: request.capture ? amount : null,
    });
    await this.answerAfterLatency();
    return answered;
  }

  /** What the card can pay of the amount: all of it, or (PARTIAL_AUTHORIZATION_LAST_FOUR) at most its limit, or a decline. */
  private decide(request: AuthorizeRequest): { amount: number; decline?: PaymentError } {
    const decline = sandboxDecline(request.card, this.now(), request.initiator);
    if (decline !== undefined) return { amount: request.amount, decline };
    if (request.card.lastFour !== PARTIAL_AUTHORIZATION_LAST_FOUR || request.amount <= PARTIAL_AUTHORIZATION_LIMIT) return { amount: request.amount };
    return request.partialAuthorization ? { amount: PARTIAL_AUTHORIZATION_LIMIT } : { amount: request.amount, decline: SANDBOX_CARDS['9995'] };
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    const replayed = await this.replay<CaptureOutcome>(request);
    if (replayed !== undefined) return this.answerAfterLatency(replayed);
    const authorization = await this.authorization(request);
    let outcome: CaptureOutcome;
    if (authorization === undefined) outcome = { status: 'failed', error: NO_AUTHORIZATION };
    else if (authorization.capture_fails) outcome = { status: 'failed', error: CAPTURE_FAILED };
    else if (authorization.state === 'authorized' && request.amount > authorization.amount && authorization.overcapture_fails) {
      // Not remembered: nothing changed at the processor, and a capture of the authorized amount may follow with the same key.
      return this.answerAfterLatency({ status: 'overcapture_declined' });
    } else {
      const moved = await this.moveAuthorization(request, 'captured', request.amount);
      // Not moved: captured (by another key) or voided meanwhile, as it stands now.
      const state = moved ? 'captured' : (await this.authorization(request))?.state;
      outcome = state === 'captured' ? { status: 'captured', amount: request.amount } : { status: 'voided' };
    }
    return this.answerAfterLatency(await this.remember(request, 'capture', outcome));
  }

  async void(request: VoidRequest): Promise<VoidOutcome> {
    const replayed = await this.replay<VoidOutcome>(request);
    if (replayed !== undefined) return this.answerAfterLatency(replayed);
    const moved = await this.moveAuthorization(request, 'voided', null);
    const authorization = moved ? undefined : await this.authorization(request);
    const outcome: VoidOutcome =
      authorization?.state === 'captured' ? { status: 'already_captured', amount: authorization.captured_amount ?? 0 } : { status: 'voided' };
    return this.answerAfterLatency(await this.remember(request, 'void', outcome));
  }

  /**
   * Refunds a captured authorization, by the card it was made with:
   * REFUND_FAILS_LAST_FOUR fails every refund, REFUND_LATER_LAST_FOUR answers
   * pending until `refundSettlesAfterMs` has passed, any other succeeds. What
   * is left to refund is the service's to keep; the sandbox refuses only a
   * reference it never captured.
   */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const now = this.now();
    const replayed = await this.replay<RefundOutcome>(request);
    if (replayed?.status === 'pending') return this.answerAfterLatency(await this.settledRefund(request, now));
    if (replayed !== undefined) return this.answerAfterLatency(replayed);
    const authorization = await this.authorization(request);
    const later = request.card.lastFour === REFUND_LATER_LAST_FOUR;
    const outcome: RefundOutcome =
      authorization?.state !== 'captured'
        ? { status: 'failed', error: NO_CAPTURE }
        : request.card.lastFour === REFUND_FAILS_LAST_FOUR
          ? { status: 'failed', error: REFUND_DECLINED }
          : later
            ? { status: 'pending' }
            : { status: 'succeeded' };
    const settlesAt = outcome.status === 'pending' ? new Date(now.getTime() + (this.settings.refundSettlesAfterMs ?? 0)) : null;
    return this.answerAfterLatency(await this.remember(request, 'refund', outcome, undefined, settlesAt));
  }

  /**
   * A $0 verification, decided by the card as an authorization is: the
   * declining and expired cards decline it, a processing error fails it,
   * any other card is approved (the payor is present: a card that asks for
   * authentication off-session passes). Its answer is remembered by key.
   */
  async verify(request: VerifyRequest): Promise<VerifyOutcome> {
    const decline = sandboxDecline(request.card, this.now(), 'customer');
    const outcome: VerifyOutcome =
      decline === undefined
        ? { status: 'approved', reference: request.idempotencyKey }
        : { status: isProcessingError(decline) ? 'failed' : 'declined', error: decline };
    return this.answerAfterLatency(await this.remember({ ...request, amount: 0 }, 'verify', outcome));
  }

  /** A pending refund asked about again: done once its time has come (then remembered as succeeded), else still pending. */
  private async settledRefund(request: RefundRequest, now: Date): Promise<RefundOutcome> {
    const settled = await runPrepared(this.db, SETTLE_REFUND, [JSON.stringify({ status: 'succeeded' }), request.locationId, request.idempotencyKey, now]);
    return settled.length > 0 ? { status: 'succeeded' } : { status: 'pending' };
  }

  private async answerAfterLatency<T>(answer?: T): Promise<T> {
    if (this.settings.latencyMs > 0) await sleep(this.settings.latencyMs);
    return answer as T;
  }

  private async replay<T>(request: { locationId: string; idempotencyKey: string }): Promise<T | undefined> {
    const [row] = await runPrepared<{ outcome: T }>(this.db, REPLAY, [request.locationId, request.idempotencyKey]);
    return row?.outcome;
  }

  private async authorization(request: { locationId: string; reference: string }) {
    const [row] = await runPrepared<{
      state: AuthorizationState;
      capture_fails: boolean;
      overcapture_fails: boolean;
      amount: number;
      captured_amount: number | null;
    }>(this.db, AUTHORIZATION, [request.locationId, request.reference]);
    return row;
  }

  /** Moves a live authorization on (to captured or voided); false when it is not live. */
  private async moveAuthorization(request: { locationId: string; reference: string }, to: AuthorizationState, capturedAmount: number | null) {
    const moved = await runPrepared(this.db, MOVE_AUTHORIZATION, [to, capturedAmount, request.locationId, request.reference]);
    return moved.length === 1;
  }

  /**
   * Stores the answer for the key unless one is stored already, and answers
   * the stored one: two requests racing with one key get one answer.
   */
  private async remember<T>(
    request: { locationId: string; idempotencyKey: string; amount?: number },
    operation: Operation,
    outcome: T,
    authorization: { state: AuthorizationState | null; captureFails: boolean; overcaptureFails?: boolean; capturedAmount: number | null } = {
      state: null,
      captureFails: false,
      capturedAmount: null,
    },
    settlesAt: Date | null = null,
  ): Promise<T> {
    const inserted = await runPrepared<{ outcome: T }>(this.db, REMEMBER, [
      request.locationId,
      request.idempotencyKey,
      operation,
      request.amount ?? null,
      JSON.stringify(outcome),
      authorization.state,
      authorization.captureFails,
      authorization.overcaptureFails ?? false,
      authorization.capturedAmount,
      settlesAt,
    ]);
    return inserted[0]?.outcome ?? ((await this.replay<T>(request)) as T);
  }
}
