// An upstream call through undici's dispatch API whose handler is itself the response: status, headers, and a body
// that is read whole under a cap, iterated chunk by chunk with backpressure, discarded, or destroyed. It replaces
// `Dispatcher.request()` on the proxy path, which builds a Node Readable stream and an AsyncResource for every
// response (measured: under 1 % of the gateway's instructions per call, so the gain is small; the reason to keep it
// is the plainer body contract: read whole under a cap, stream with backpressure, discard, destroy).
import type { Dispatcher } from 'undici';

/** Queued body bytes beyond which the upstream read pauses until the consumer takes them. */
const HIGH_WATER = 64 * 1024;

export type UpstreamRequest = Omit<Dispatcher.DispatchOptions, 'body'> & { body?: string | Buffer };

export class UpstreamAborted extends Error {
  constructor() {
    super('upstream response destroyed by the gateway');
  }
}

/** Sends a request and resolves once the final (non-1xx) status and headers arrived; rejects with undici's error. */
export function sendUpstream(dispatcher: Dispatcher, opts: UpstreamRequest): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(opts, new UpstreamResponse(resolve, reject));
  });
}

export class UpstreamResponse implements Dispatcher.DispatchHandler {
  statusCode = 0;
  /**
   * Lower-case names; repeated headers as arrays (what undici's request() gave). A plain object: one without a
   * prototype is a dictionary to V8 and made every header store and copy several times slower; `__proto__` is defined
   * as an own property instead (see onHeaders).
   */
  readonly headers: Record<string, string | string[]> = {};
  private started = false;
  private queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: Error | undefined;
  private dropping = false;
  private paused = false;
  private resumeUpstream: (() => void) | undefined;
  private abortUpstream: ((err: Error) => void) | undefined;
  private wake: (() => void) | undefined;
  private cap = Infinity;
  private overCap = false;
  private gone = false;
  /** Push mode (writeTo): where each chunk goes as undici delivers it. */
  private sink: ((chunk: Buffer) => boolean) | undefined;

  constructor(private readonly onStart: (r: UpstreamResponse) => void, private readonly onFail: (err: Error) => void) {}

  /** True once the gateway destroyed the body or the upstream exchange failed. */
  get destroyed(): boolean {
    return this.gone || this.failure !== undefined;
  }

  /** Whether body bytes have arrived that nobody has read yet. */
  get buffered(): boolean {
    return this.queue.length > 0;
  }

  // --- undici handler (legacy callback API, which the client calls without an adapter) ---

  onConnect(abort: (err?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.gone) abort(new UpstreamAborted());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true; // 1xx: the final answer follows
    this.statusCode = statusCode;
    this.resumeUpstream = resume;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!.toString('latin1').toLowerCase();
      const value = rawHeaders[i + 1]!.toString('latin1');
      const cur = Object.hasOwn(this.headers, name) ? this.headers[name] : undefined;
      if (cur === undefined) {
        if (name === '__proto__') Object.defineProperty(this.headers, name, { value, enumerable: true, configurable: true, writable: true });
        else this.headers[name] = value;
      } else if (typeof cur === 'string') this.headers[name] = [cur, value];
      else cur.push(value);
    }
    this.started = true;
    this.onStart(this);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.dropping || this.gone) return true;
    if (this.sink) return this.push(chunk);
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued > this.cap) {
      this.overCap = true;
      this.destroy();
      return true;
    }
    this.notify();
    if (this.queued > HIGH_WATER && this.cap === Infinity) {
      this.paused = true;
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.ended = true;
    this.notify();
  }

  onError(err: Error): void {
    if (!this.started) {
      this.onFail(err);
      return;
    }
    // The first failure is the one to report (a sink's own error aborts the exchange, which fails it again).
    if (!this.gone) this.failure ??= err;
    this.notify();
  }

  // --- consumer side ---

  /**
   * The whole body, or undefined when it grows past `cap` bytes (the exchange is then destroyed, never read on).
   * Rejects with the upstream's error when the exchange fails midway.
   */
  async readAll(cap: number): Promise<Buffer | undefined> {
    this.cap = cap;
    if (this.queued > cap) {
      this.overCap = true;
      this.destroy();
    }
    this.resume();
    while (!this.ended) {
      if (this.overCap) return undefined;
      if (this.failure) throw this.failure;
      if (this.gone) return undefined;
      await this.next();
    }
    if (this.overCap) return undefined;
    return this.queue.length === 1 ? this.queue[0]! : Buffer.concat(this.queue, this.queued);
  }

  /** The body chunk by chunk as it arrives; the upstream read pauses while unread chunks pile up. */
  async *chunks(): AsyncGenerator<Buffer> {
    for (;;) {
      const c = this.queue.shift();
      if (c !== undefined) {
        this.queued -= c.length;
        if (this.paused && this.queued <= HIGH_WATER / 2) this.resume();
        yield c;
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended || this.gone) return;
      await this.next();
    }
  }

  /**
   * Push mode: every chunk goes to `write` as undici delivers it, in the same turn (the chunks queued before this
   * call first, in order). Per chunk that is a function call where chunks() costs an awaited promise or two; an LLM
   * stream is mostly small chunks (docs/performance.md, "Streams: the cost per chunk"). `write` returns false when
   * its consumer is full: the upstream read then pauses until `resume()`. Resolves when the body has ended or the
   * response was destroyed; rejects with the upstream's error, or with the error `write` threw (the exchange is then
   * aborted).
   */
  async writeTo(write: (chunk: Buffer) => boolean): Promise<void> {
    this.sink = write;
    let more = true;
    // What arrived before an upstream failure is handed over first, as chunks() does; a sink that throws stops it.
    const failedBefore = this.failure;
    for (let c = this.queue.shift(); c !== undefined && !this.gone && this.failure === failedBefore; c = this.queue.shift()) {
      this.queued -= c.length;
      more = this.push(c) && more;
    }
    if (more) this.resume();
    while (!this.ended && !this.destroyed) await this.next();
    if (this.failure) throw this.failure;
  }

  /** A chunk handed to the sink; its answer is undici's (false pauses the read). */
  private push(chunk: Buffer): boolean {
    let more: boolean;
    try {
      more = this.sink!(chunk);
    } catch (err) {
      // Not thrown into undici's parser, whose caller this is: the exchange fails, and writeTo rejects with it.
      this.failure ??= err instanceof Error ? err : new Error(String(err));
      queueMicrotask(() => { if (!this.ended) this.abortUpstream?.(this.failure!); });
      this.notify();
      return false;
    }
    if (!more) this.paused = true;
    return more;
  }

  /** Reads and drops the rest of the body (keeps the upstream connection reusable). */
  discard(): void {
    this.dropping = true;
    this.queue = [];
    this.queued = 0;
    this.resume();
  }

  /** Ends the exchange now (client gone, body over the cap): the upstream connection is closed. */
  destroy(): void {
    if (this.gone) return;
    this.gone = true;
    this.queue = [];
    this.queued = 0;
    if (!this.ended) this.abortUpstream?.(new UpstreamAborted());
    this.notify();
  }

  /** Reads the upstream on after a pause (push mode: the consumer can take more again after `write` returned false). */
  resume(): void {
    // After the end the connection may already carry another request, whose parser this resume would wake.
    if (!this.paused || this.ended) return;
    this.paused = false;
    this.resumeUpstream?.();
  }

  private next(): Promise<void> {
    return new Promise((resolve) => { this.wake = resolve; });
  }

  private notify(): void {
    const w = this.wake;
    if (w) {
      this.wake = undefined;
      w();
    }
  }
}
