// Waiting in tests is waiting for a condition: poll until it holds, with a deadline, never sleep for a guessed time.
// (Rows that writers buffer need no polling at all: TestApp.flush() writes them.)

export interface EventuallyOptions {
  /** Gives up after this long (default 15 s: generous for a loaded CI machine; a passing test never waits it out). */
  timeoutMs?: number;
  /** Pause between two looks (default 50 ms). */
  intervalMs?: number;
  /** Named in the error when the deadline passes. */
  what?: string;
}

/** Resolves with the first truthy value `fn` returns; rejects once the deadline has passed. */
export async function eventually<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, opts: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 15_000, intervalMs = 50, what = 'condition' } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
