import { Redis } from 'ioredis';
import { DatastoreUnavailable } from '../db/db.ts';
import type { CounterResult, State } from './state.ts';

// INCRBY plus expiry in one round trip, atomic on the server: a new key (or a sliding window) gets the TTL.
const INCR_SCRIPT = `
local v = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if tonumber(ARGV[2]) > 0 and (ttl < 0 or ARGV[3] == '1') then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {v, ttl}
`;

// INCRBYFLOAT only on an existing key (nothing is created); a key without expiry gets the TTL.
const INCR_IF_EXISTS_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local v = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 and redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v
`;

/**
 * How long one command may take. Redis answers in well under a millisecond; one that does not answer at all (a
 * frozen process, a black-holed network) would otherwise hold every proxy request that touches it forever.
 */
const COMMAND_TIMEOUT_MS = 1000;
/** After a command timed out, calls fail at once for this long instead of each waiting out the timeout. */
const SUSPEND_MS = 1000;

// Errors that mean "Redis is not serving" (including a server still loading its data after a restart), as opposed to
// an error in a command.
const UNREACHABLE = /ECONNREFUSED|Connection is closed|ETIMEDOUT|max retries|Stream isn't writeable|ECONNRESET|Command timed out|^LOADING/i;

export class RedisState implements State {
  readonly kind = 'redis';
  private readonly client: Redis;
  private sub: Redis | undefined;
  private readonly handlers = new Map<string, Set<(m: string) => void>>();
  /** Set after a command timed out (see call()); 0 while Redis answers. */
  private suspendedUntil = 0;
  private probing = false;

  constructor(url: string, private readonly prefix: string) {
    this.client = new Redis(url, {
      keyPrefix: prefix,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 3000,
      commandTimeout: COMMAND_TIMEOUT_MS,
      lazyConnect: false,
    });
    this.client.on('error', () => { /* surfaced per command as DatastoreUnavailable */ });
    this.client.defineCommand('tgIncr', { numberOfKeys: 1, lua: INCR_SCRIPT });
    this.client.defineCommand('tgIncrIfExists', { numberOfKeys: 1, lua: INCR_IF_EXISTS_SCRIPT });
  }

  /**
   * Runs one command; an unreachable or unresponsive Redis becomes DatastoreUnavailable (callers fail open or fall
   * back). After a timeout, calls fail at once for SUSPEND_MS; then one call at a time probes until one is answered.
   */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    const probe = this.suspendedUntil !== 0;
    if (probe) {
      if (Date.now() < this.suspendedUntil || this.probing) throw new DatastoreUnavailable('redis');
      this.probing = true;
    }
    try {
      const r = await command();
      if (probe) this.suspendedUntil = 0;
      return r;
    } catch (err) {
      throw this.failure(err, probe);
    } finally {
      if (probe) this.probing = false;
    }
  }

  /** Records a timeout (suspending calls) or a failed probe, and returns what call() throws for `err`. */
  private failure(err: unknown, probe: boolean): unknown {
    const msg = String((err as { message?: unknown })?.message ?? '');
    const timedOut = /Command timed out/i.test(msg);
    if (probe || timedOut) this.suspendedUntil = timedOut ? Date.now() + SUSPEND_MS : 0;
    if (!UNREACHABLE.test(msg)) return err;
    return new DatastoreUnavailable('redis', err);
  }

  async ready(): Promise<void> {
    if (this.client.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new DatastoreUnavailable('redis')), 5000);
      this.client.once('ready', () => { clearTimeout(t); resolve(); });
    });
  }

  async incr(key: string, by: number, ttlMs: number, refreshTtl = false): Promise<CounterResult> {
    const cmd = (this.client as unknown as { tgIncr: (k: string, ...a: string[]) => Promise<[string, number]> }).tgIncr;
    const [v, ttl] = await this.call(() => cmd.call(this.client, key, String(by), String(Math.max(0, Math.round(ttlMs))), refreshTtl ? '1' : '0'));
    return { value: Number(v), ttlMs: Number(ttl) };
  }

  async incrIfExists(key: string, by: number, ttlMs: number): Promise<number | undefined> {
    const cmd = (this.client as unknown as { tgIncrIfExists: (k: string, ...a: string[]) => Promise<string | null> }).tgIncrIfExists;
    const v = await this.call(() => cmd.call(this.client, key, String(by), String(Math.max(0, Math.round(ttlMs)))));
    return v === null ? undefined : Number(v);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const r = ttlMs > 0 ? await this.call(() => this.client.set(key, value, 'PX', Math.round(ttlMs), 'NX')) : await this.call(() => this.client.set(key, value, 'NX'));
    return r === 'OK';
  }

  async getNumber(key: string): Promise<number> {
    const v = await this.call(() => this.client.get(key));
    return v === null ? 0 : Number(v) || 0;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.call(() => this.client.get(key))) ?? undefined;
  }

  async getBuffer(key: string): Promise<Buffer | undefined> {
    return (await this.call(() => this.client.getBuffer(key))) ?? undefined;
  }

  async set(key: string, value: string | Buffer, ttlMs?: number): Promise<void> {
    if (ttlMs && ttlMs > 0) await this.call(() => this.client.set(key, value, 'PX', Math.round(ttlMs)));
    else await this.call(() => this.client.set(key, value));
  }

  async setCached(key: string, value: string | Buffer, ttlMs: number): Promise<void> {
    await this.set(key, value, ttlMs);
  }

  async ttl(key: string): Promise<number> {
    return this.call(() => this.client.pttl(key));
  }

  async del(...keys: string[]): Promise<void> {
    if (keys.length) await this.call(() => this.client.del(...keys));
  }

  async delPrefix(prefix: string): Promise<number> {
    // SCAN matches full key names, so the client's keyPrefix is added by hand and stripped before DEL.
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await this.call(() => this.client.scan(cursor, 'MATCH', `${this.prefix}${prefix}*`, 'COUNT', 500));
      cursor = next;
      if (keys.length) n += await this.call(() => this.client.del(...keys.map((k) => k.slice(this.prefix.length))));
    } while (cursor !== '0');
    return n;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.call(() => this.client.publish(this.prefix + channel, message));
  }

  async subscribe(channel: string, onMessage: (message: string) => void) {
    const full = this.prefix + channel;
    if (!this.sub) {
      this.sub = this.client.duplicate({ keyPrefix: '', enableOfflineQueue: true, maxRetriesPerRequest: null });
      this.sub.on('error', () => undefined);
      this.sub.on('message', (ch: string, msg: string) => {
        for (const h of this.handlers.get(ch) ?? []) h(msg);
      });
    }
    let set = this.handlers.get(full);
    if (!set) {
      set = new Set();
      this.handlers.set(full, set);
      await this.sub.subscribe(full);
    }
    set.add(onMessage);
    return async () => { set.delete(onMessage); };
  }

  async ping(): Promise<void> {
    await this.call(() => this.client.ping());
  }

  async close(): Promise<void> {
    this.sub?.disconnect();
    this.client.disconnect();
  }
}
