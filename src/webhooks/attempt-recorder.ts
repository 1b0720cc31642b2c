import type { Knex } from 'knex';
import { recordAttempts, type AttemptRecord } from './webhook-deliveries.repository';

/** A batch is written once this many attempts wait, or this long after the first of them. */
const MAX_BATCH = 32;
const MAX_WAIT_MS = 20;

/**
 * Writes the dispatcher's attempt records in batches (recordAttempts: one
 * statement and one commit for many), each attempt's promise settling when
 * its batch is written. A record waits at most 20 ms; a process that dies
 * in that time leaves its deliveries leased, and they are attempted again
 * when the lease ends: at least once, as before. The timer is not unref'd:
 * a stopping dispatcher waits for its attempts, which wait for it.
 */
export class AttemptRecorder {
  private waiting: Array<{ record: AttemptRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Knex) {}

  record(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ record, resolve, reject });
      if (this.waiting.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), MAX_WAIT_MS);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting.splice(0);
    if (batch.length === 0) return;
    recordAttempts(
      this.db,
      batch.map(({ record }) => record),
    ).then(
      () => batch.forEach(({ resolve }) => resolve()),
      (error: unknown) => batch.forEach(({ reject }) => reject(error)),
    );
  }
}
