import { EventEmitter } from 'node:events';
import type { CounterResult, State } from './state.ts';

interface Entry {
  value: string | Buffer | number;
  expiresAt: number; // 0 = never
  /** Set on cache entries (setCached) only: their approximate size. */
  bytes?: number;
}

/** Default bound of cache entries (setCached), in bytes. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * What a cache entry costs on the heap besides its key's and value's characters: the map and age-order slots, the
 * entry object, the string headers. Measured on Node 20 at 480–740 bytes per entry (docs/performance.md, "The
 * static_cache's bound is the heap it takes"); the 96 assumed before let small answers take twice the bound.
 */
const ENTRY_OVERHEAD = 512;

/**
 * In-process state for a single node. Time is read from `now` (the Services clock, so tests expire TTLs by moving
 * their clock instead of waiting). Expired entries are dropped lazily and by a periodic sweep. Cache entries
 * (setCached) are also bounded in size, oldest dropped first: without the bound, a client that calls a cached tool
 * with ever new arguments would grow the gateway by one stored answer per call for the whole TTL.
 */
export class MemoryState implements State {
  readonly kind = 'memory';
  private readonly map = new Map<string, Entry>();
  /** Keys of cache entries by age (a Set keeps insertion order). */
  private readonly cacheOrder = new Set<string>();
  private cachedBytes = 0;
  private readonly bus = new EventEmitter();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now, private readonly maxCacheBytes = DEFAULT_CACHE_BYTES) {
    this.bus.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt && e.expiresAt <= this.now()) {
      this.remove(key, e);
      return undefined;
    }
    return e;
  }

  private drop(key: string): void {
    const e = this.map.get(key);
    if (e) this.remove(key, e);
  }

  private remove(key: string, e: Entry): void {
    this.map.delete(key);
    this.uncache(key, e);
  }

  /** The entry no longer counts as a cache entry (removed, or turned into a counter by incr). */
  private uncache(key: string, e: Entry): void {
    if (e.bytes === undefined) return;
    this.cachedBytes -= e.bytes;
    e.bytes = undefined;
    this.cacheOrder.delete(key);
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, e] of this.map) if (e.expiresAt && e.expiresAt <= t) this.remove(k, e);
  }

  async incr(key: string, by: number, ttlMs: number, refreshTtl = false): Promise<CounterResult> {
    const t = this.now();
    const e = this.live(key);
    if (!e) {
      this.map.set(key, { value: by, expiresAt: ttlMs > 0 ? t + ttlMs : 0 });
      return { value: by, ttlMs: ttlMs > 0 ? ttlMs : -1 };
    }
    this.uncache(key, e);
    e.value = Number(e.value) + by;
    if (refreshTtl && ttlMs > 0) e.expiresAt = t + ttlMs;
    return { value: e.value, ttlMs: e.expiresAt ? e.expiresAt - t : -1 };
  }

  async incrIfExists(key: string, by: number, ttlMs: number): Promise<number | undefined> {
    const e = this.live(key);
    if (!e) return undefined;
    this.uncache(key, e);
    e.value = Number(e.value) + by;
    if (!e.expiresAt && ttlMs > 0) e.expiresAt = this.now() + ttlMs;
    return e.value;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.live(key)) return false;
    this.map.set(key, { value, expiresAt: ttlMs > 0 ? this.now() + ttlMs : 0 });
    return true;
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
    this.drop(key);
    this.map.set(key, { value, expiresAt: ttlMs && ttlMs > 0 ? this.now() + ttlMs : 0 });
  }

  async setCached(key: string, value: string | Buffer, ttlMs: number): Promise<void> {
    // Characters for a string (V8 keeps JSON text one byte per character), bytes for a Buffer.
    const bytes = key.length + value.length + ENTRY_OVERHEAD;
    this.drop(key);
    if (bytes > this.maxCacheBytes) return;
    this.map.set(key, { value, expiresAt: ttlMs > 0 ? this.now() + ttlMs : 0, bytes });
    this.cacheOrder.add(key);
    this.cachedBytes += bytes;
    for (const oldest of this.cacheOrder) {
      if (this.cachedBytes <= this.maxCacheBytes) break;
      this.drop(oldest);
    }
  }

  /** Approximate bytes held by cache entries (tests, status). */
  get cacheBytes(): number {
    return this.cachedBytes;
  }

  async ttl(key: string): Promise<number> {
    const e = this.live(key);
    if (!e) return -2;
    return e.expiresAt ? e.expiresAt - this.now() : -1;
  }

  async del(...keys: string[]): Promise<void> {
    for (const k of keys) this.drop(k);
  }

  async delPrefix(prefix: string): Promise<number> {
    let n = 0;
    for (const k of this.map.keys()) if (k.startsWith(prefix)) {
      this.drop(k);
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
    this.cacheOrder.clear();
    this.cachedBytes = 0;
    this.bus.removeAllListeners();
  }
}
