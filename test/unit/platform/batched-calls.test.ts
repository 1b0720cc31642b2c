import { BatchedCalls } from '../../../src/platform/batched-calls';

/** A store that answers each input doubled once let through, recording its batches. */
function gatedStore() {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const send = async (inputs: number[]): Promise<number[]> => {
    batches.push(inputs);
    await new Promise<void>((resolve) => gates.push(resolve));
    if (inputs.includes(-1)) throw new Error('store refused');
    return inputs.map((input) => input * 2);
  };
  const openNext = async (): Promise<void> => {
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()?.();
  };
  return { batches, send, openNext };
}

describe('BatchedCalls', () => {
  it('sends the calls of one turn together, and those made while it is in flight in the next batch', async () => {
    const store = gatedStore();
    const calls = new BatchedCalls(store.send, 100);
    const first = [1, 2, 3].map((input) => calls.call(input));
    await store.openNext();
    const later = [4, 5].map((input) => calls.call(input));
    await store.openNext();
    expect(await Promise.all([...first, ...later])).toEqual([2, 4, 6, 8, 10]);
    expect(store.batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('sends at most `most` inputs a batch', async () => {
    const store = gatedStore();
    const calls = new BatchedCalls(store.send, 2);
    const answers = Promise.all([1, 2, 3, 4, 5].map((input) => calls.call(input)));
    for (let batch = 0; batch < 3; batch += 1) await store.openNext();
    expect(await answers).toEqual([2, 4, 6, 8, 10]);
    expect(store.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails every call of a batch that fails, and only those', async () => {
    const store = gatedStore();
    const calls = new BatchedCalls(store.send, 100);
    const failing = Promise.allSettled([calls.call(1), calls.call(-1)]);
    await store.openNext();
    const next = calls.call(7);
    await store.openNext();
    expect((await failing).map((settled) => (settled.status === 'rejected' ? (settled.reason as Error).message : settled.value))).toEqual([
      'store refused',
      'store refused',
    ]);
    expect(await next).toBe(14);
  });
});
