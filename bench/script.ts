/**
 * What the stand-alone bench scripts (bench:webhooks and its backlog and
 * job-queue siblings) share: running `main` and printing its Markdown lines,
 * and a steady stream of work at a rate.
 */

/** Runs a script's `main`, prints the lines it answers, and exits 1 with the stack if it throws. */
export function runScript(main: () => Promise<string[]>): void {
  main().then(
    (lines) => process.stdout.write(`${lines.join('\n')}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

/**
 * Calls `act(n)` for n = 0, 1, … at `perSecond` a second, each after the
 * last has ended, for `seconds`; answers how many it made and the seconds it took.
 */
export async function atRate(perSecond: number, seconds: number, act: (n: number) => Promise<unknown>): Promise<{ made: number; seconds: number }> {
  const started = performance.now();
  let made = 0;
  while (performance.now() - started < seconds * 1000) {
    await act(made);
    made += 1;
    const wait = started + (made / perSecond) * 1000 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return { made, seconds: (performance.now() - started) / 1000 };
}
