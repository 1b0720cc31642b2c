interface Waiting<In, Out> {
  input: In;
  resolve: (output: Out) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers calls to a store that answers many inputs in one round trip, as a
 * database's group commit gathers commits: a call made while no batch is in
 * flight goes at once (with every call made in the same turn), and calls made
 * while one is in flight wait for it and go together in the next. Under load
 * the batches grow with the round trip, so the store's statements stay few
 * however many callers there are; unloaded, a call waits for nothing. A batch
 * that fails fails each of its calls.
 */
export class BatchedCalls<In, Out> {
  private waiting: Waiting<In, Out>[] = [];
  private sending = false;

  constructor(
    /** Answers the inputs in their order; never called with more than `most`. */
    private readonly send: (inputs: In[]) => Promise<Out[]>,
    private readonly most: number,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.sending) return;
      this.sending = true;
      queueMicrotask(() => void this.sendWaiting());
    });
  }

  private async sendWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.most);
      try {
        const outputs = await this.send(batch.map(({ input }) => input));
        batch.forEach(({ resolve }, index) => resolve(outputs[index] as Out));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    this.sending = false;
  }
}
