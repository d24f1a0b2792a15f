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

function wrap<T>(p: Promise<T>): Promise<T> {
  return p.catch((err: unknown) => {
    const msg = String((err as { message?: unknown })?.message ?? '');
    if (/ECONNREFUSED|Connection is closed|ETIMEDOUT|max retries|Stream isn't writeable|ECONNRESET/i.test(msg)) {
      throw new DatastoreUnavailable('redis', err);
    }
    throw err;
  });
}

export class RedisState implements State {
  readonly kind = 'redis';
  private readonly client: Redis;
  private sub: Redis | undefined;
  private readonly handlers = new Map<string, Set<(m: string) => void>>();

  constructor(url: string, private readonly prefix: string) {
    this.client = new Redis(url, {
      keyPrefix: prefix,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 3000,
      lazyConnect: false,
    });
    this.client.on('error', () => { /* surfaced per command as DatastoreUnavailable */ });
    this.client.defineCommand('tgIncr', { numberOfKeys: 1, lua: INCR_SCRIPT });
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
    const [v, ttl] = await wrap(cmd.call(this.client, key, String(by), String(Math.max(0, Math.round(ttlMs))), refreshTtl ? '1' : '0'));
    return { value: Number(v), ttlMs: Number(ttl) };
  }

  async getNumber(key: string): Promise<number> {
    const v = await wrap(this.client.get(key));
    return v === null ? 0 : Number(v) || 0;
  }

  async get(key: string): Promise<string | undefined> {
    return (await wrap(this.client.get(key))) ?? undefined;
  }

  async getBuffer(key: string): Promise<Buffer | undefined> {
    return (await wrap(this.client.getBuffer(key))) ?? undefined;
  }

  async set(key: string, value: string | Buffer, ttlMs?: number): Promise<void> {
    if (ttlMs && ttlMs > 0) await wrap(this.client.set(key, value, 'PX', Math.round(ttlMs)));
    else await wrap(this.client.set(key, value));
  }

  async setCached(key: string, value: string | Buffer, ttlMs: number): Promise<void> {
    await this.set(key, value, ttlMs);
  }

  async ttl(key: string): Promise<number> {
    return wrap(this.client.pttl(key));
  }

  async del(...keys: string[]): Promise<void> {
    if (keys.length) await wrap(this.client.del(...keys));
  }

  async delPrefix(prefix: string): Promise<number> {
    // SCAN matches full key names, so the client's keyPrefix is added by hand and stripped before DEL.
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await wrap(this.client.scan(cursor, 'MATCH', `${this.prefix}${prefix}*`, 'COUNT', 500));
      cursor = next;
      if (keys.length) n += await wrap(this.client.del(...keys.map((k) => k.slice(this.prefix.length))));
    } while (cursor !== '0');
    return n;
  }

  async publish(channel: string, message: string): Promise<void> {
    await wrap(this.client.publish(this.prefix + channel, message));
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
    await wrap(this.client.ping());
  }

  async close(): Promise<void> {
    this.sub?.disconnect();
    this.client.disconnect();
  }
}
