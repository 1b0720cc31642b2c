import type { Logger } from '../logger';

/**
 * Work a replica does on its own every `intervalMs` (at once on start when
 * `atStart`), never two runs at a time: a run that outlasts the interval
 * delays the next instead of overlapping it. A failure is logged and the
 * next run tries again. `stop` takes no new run and waits for the one in
 * flight, so the pool can close after it (graceful-shutdown.ts's `background`).
 */
export class RepeatingTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<number>,
  ) {}

  start(options: { atStart: boolean }): void {
    this.schedule(options.atStart ? 0 : this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run().finally(() => {
        this.running = undefined;
        this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    try {
      const done = await this.work();
      if (done > 0) this.logger.info({ count: done }, this.what);
    } catch (error) {
      this.logger.warn({ err: error }, `${this.what} failed; will retry`);
    }
  }
}
