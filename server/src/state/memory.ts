import { EventEmitter } from 'node:events';
import type { CounterResult, State } from './state.ts';

interface Entry {
  value: string | Buffer | number;
  expiresAt: number; // 0 = never
}

/** In-process state for a single node. Expired entries are dropped lazily and by a periodic sweep. */
export class MemoryState implements State {
  readonly kind = 'memory';
  private readonly map = new Map<string, Entry>();
  private readonly bus = new EventEmitter();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.bus.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt && e.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return e;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, e] of this.map) if (e.expiresAt && e.expiresAt <= t) this.map.delete(k);
  }

  async incr(key: string, by: number, ttlMs: number, refreshTtl = false): Promise<CounterResult> {
    const t = this.now();
    const e = this.live(key);
    if (!e) {
      this.map.set(key, { value: by, expiresAt: ttlMs > 0 ? t + ttlMs : 0 });
      return { value: by, ttlMs: ttlMs > 0 ? ttlMs : -1 };
    }
    e.value = Number(e.value) + by;
    if (refreshTtl && ttlMs > 0) e.expiresAt = t + ttlMs;
    return { value: e.value, ttlMs: e.expiresAt ? e.expiresAt - t : -1 };
  }

  async getNumber(key: string): Promise<number> {
    const e = this.live(key);
    return e ? Number(e.value) || 0 : 0;
  }

  async get(key: string): Promise<string | undefined> {
    const e = this.live(key);
    return e === undefined ? undefined : String(e.value);
  }

  async getBuffer(key: string): Promise<Buffer | undefined> {
    const e = this.live(key);
    if (e === undefined) return undefined;
    return Buffer.isBuffer(e.value) ? e.value : Buffer.from(String(e.value));
  }

  async set(key: string, value: string | Buffer, ttlMs?: number): Promise<void> {
    this.map.set(key, { value, expiresAt: ttlMs && ttlMs > 0 ? this.now() + ttlMs : 0 });
  }

  async ttl(key: string): Promise<number> {
    const e = this.live(key);
    if (!e) return -2;
    return e.expiresAt ? e.expiresAt - this.now() : -1;
  }

  async del(...keys: string[]): Promise<void> {
    for (const k of keys) this.map.delete(k);
  }

  async delPrefix(prefix: string): Promise<number> {
    let n = 0;
    for (const k of this.map.keys()) if (k.startsWith(prefix)) {
      this.map.delete(k);
      n++;
    }
    return n;
  }

  async publish(channel: string, message: string): Promise<void> {
    queueMicrotask(() => this.bus.emit(channel, message));
  }

  async subscribe(channel: string, onMessage: (message: string) => void) {
    this.bus.on(channel, onMessage);
    return async () => { this.bus.off(channel, onMessage); };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.map.clear();
    this.bus.removeAllListeners();
  }
}
