import type {
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  PaymentProcessor,
  RefundOutcome,
  RefundRequest,
  VerifyOutcome,
  VerifyRequest,
  VoidOutcome,
  VoidRequest,
} from '../../src/payment-processor/payment-processor';

/**
 * A real processor (the sandbox) whose answers to authorize can be held back,
 * so that a test sees an intent PROCESSING for as long as it needs, without
 * timing anything; or lost after the processor acted (`loseAnswers`), as when
 * a process dies or the network drops between the processor and the service.
 */
export class GatedProcessor implements PaymentProcessor {
  readonly name = 'gated sandbox';
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  private losing = false;
  /** Authorize calls that reached the processor. */
  authorizations = 0;
  /** Verify calls (a setup intent's $0 authorization) that reached the processor. */
  verifications = 0;

  constructor(private readonly inner: PaymentProcessor) {}

  /** From now on, authorize and verify answers wait until `release`. */
  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  /** Authorize, verify and refund act at the processor, then throw instead of answering (true), or answer again (false). */
  loseAnswers(losing: boolean): void {
    this.losing = losing;
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    this.authorizations += 1;
    const outcome = await this.inner.authorize(request);
    await this.gate;
    if (this.losing) throw new Error('socket hang up');
    return outcome;
  }

  capture(request: CaptureRequest): Promise<CaptureOutcome> {
    return this.inner.capture(request);
  }

  void(request: VoidRequest): Promise<VoidOutcome> {
    return this.inner.void(request);
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const outcome = await this.inner.refund(request);
    if (this.losing) throw new Error('socket hang up');
    return outcome;
  }

  async verify(request: VerifyRequest): Promise<VerifyOutcome> {
    this.verifications += 1;
    const outcome = await this.inner.verify(request);
    await this.gate;
    if (this.losing) throw new Error('socket hang up');
    return outcome;
  }
}
