// Hot state shared by gateway replicas: counters, caches, bans, budget windows and change notifications.
// Redis when REDIS_URL (or a Sentinel or Cluster: docs/scaling.md) is set; otherwise in-process (one node only).

export interface CounterResult {
  /** Value after the increment. */
  value: number;
  /** Milliseconds until the key expires (-1 if it has no expiry). */
  ttlMs: number;
}

export interface State {
  readonly kind: 'redis' | 'memory';
  /**
   * Adds `by` to a counter. A new key gets `ttlMs`; with `refreshTtl` every call resets it (sliding window).
   * Atomic across replicas.
   */
  incr(key: string, by: number, ttlMs: number, refreshTtl?: boolean): Promise<CounterResult>;
  /**
   * Adds `by` to a counter only if it exists (a new TTL is set only when the key has none). Returns the value after
   * the increment, or undefined when the key is missing (nothing is created). Atomic across replicas.
   */
  incrIfExists(key: string, by: number, ttlMs: number): Promise<number | undefined>;
  /** Sets `key` only if it does not exist (SET NX); true when this call created it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Current value of a counter (0 when absent). */
  getNumber(key: string): Promise<number>;
  get(key: string): Promise<string | undefined>;
  getBuffer(key: string): Promise<Buffer | undefined>;
  set(key: string, value: string | Buffer, ttlMs?: number): Promise<void>;
  /**
   * Stores a cache entry (static_cache answers): like `set`, but the in-process store may drop it before its TTL,
   * oldest first, to stay within its memory bound (`TOLLGATE_MEMORY_CACHE_MB`). Redis keeps it like any key (its own
   * maxmemory policy applies). Never for counters, bans or budgets, which must not vanish early.
   */
  setCached(key: string, value: string | Buffer, ttlMs: number): Promise<void>;
  /** Remaining TTL in ms; -2 when the key does not exist, -1 when it has no expiry. */
  ttl(key: string): Promise<number>;
  del(...keys: string[]): Promise<void>;
  /** Deletes every key starting with `prefix` (cache drain). */
  delPrefix(prefix: string): Promise<number>;
  publish(channel: string, message: string): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
