// The work queue between the informers and the reconcilers. A key is queued at most once, never processed by two
// workers at once (a key added while it is being processed runs again afterwards), and a failing key is retried after
// an exponentially growing delay of its own (base · 2^failures, capped), so one broken object cannot starve the rest.
export interface QueueOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

export class WorkQueue {
  readonly #o: QueueOptions;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #processing = new Set<string>();
  /** Added again while being processed: queued once the current run ends. */
  readonly #dirty = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #waiters: Array<() => void> = [];
  #closed = false;

  constructor(o: QueueOptions) {
    this.#o = o;
  }

  /** Keys waiting to be processed (not those delayed or in progress). */
  get depth(): number { return this.#queue.length; }

  add(key: string): void {
    if (this.#closed) return;
    if (this.#processing.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#queue.push(key);
    this.#waiters.shift()?.();
  }

  /** Queues the key after `ms`; an earlier pending delay for the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.#closed) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const pending = this.#timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => { this.#timers.delete(key); this.add(key); }, ms);
    timer.unref();
    this.#timers.set(key, { at, timer });
  }

  /** Retries the key after its backoff delay, which doubles with each consecutive failure. Returns the delay. */
  addRateLimited(key: string): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    const delay = Math.min(this.#o.maxDelayMs, this.#o.baseDelayMs * 2 ** Math.min(n, 30));
    this.addAfter(key, delay);
    return delay;
  }

  /** The key succeeded: its next failure starts the backoff from the base delay again. */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** The next key to process, or undefined once the queue is shut down. Call done(key) when finished. */
  async next(): Promise<string | undefined> {
    while (!this.#closed && this.#queue.length === 0) await new Promise<void>((r) => this.#waiters.push(r));
    if (this.#closed) return undefined;
    const key = this.#queue.shift()!;
    this.#queued.delete(key);
    this.#processing.add(key);
    return key;
  }

  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.delete(key)) this.add(key);
  }

  /** Stops handing out keys; workers blocked in next() get undefined. */
  shutdown(): void {
    this.#closed = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const w of this.#waiters.splice(0)) w();
  }
}
