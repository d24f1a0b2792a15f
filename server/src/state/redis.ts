import { Cluster } from 'ioredis';
import type { RedisTarget } from '../config/redis.ts';
import { DatastoreUnavailable } from '../db/db.ts';
import { silentLogger, type Logger } from '../log.ts';
import { connectRedis, reconnectWhenEnded, subscriberOf, type RedisClient } from './redis-connect.ts';
import type { CounterResult, State } from './state.ts';

// Redis Cluster: each script below reads and writes one key only, so it never spans hash slots, and no key needs a
// hash tag `{...}`. The only commands given several keys are DEL (del, delPrefix): on a Cluster they are split into
// one DEL per key (see del), since deleting several keys together needs no atomicity here. SCAN walks one server,
// so delPrefix scans every master.

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

/** After a command timed out, calls fail at once for this long instead of each waiting out the timeout. */
const SUSPEND_MS = 1000;

// Errors that mean "Redis is not serving" (including a server still loading its data after a restart, a Cluster
// without a master for a slot, a Sentinel setup between primaries), as opposed to an error in a command.
const UNREACHABLE = /ECONNREFUSED|Connection is closed|ETIMEDOUT|max retries|Stream isn't writeable|ECONNRESET|Command timed out|^LOADING|^CLUSTERDOWN|^TRYAGAIN|^READONLY|^MASTERDOWN|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available|All sentinels are unreachable/i;

export class RedisState implements State {
  readonly kind = 'redis';
  private readonly client: RedisClient;
  private sub: RedisClient | undefined;
  private readonly handlers = new Map<string, Set<(m: string) => void>>();
  /** Set after a command timed out (see call()); 0 while Redis answers. */
  private suspendedUntil = 0;
  private probing = false;
  private closed = false;
  private corked = false;

  /** `target`: a redis:// URL, or any RedisTarget (one server, Sentinel, Cluster). */
  constructor(target: string | RedisTarget, private readonly prefix: string, private readonly log: Logger = silentLogger) {
    this.client = connectRedis(typeof target === 'string' ? { kind: 'url', url: target } : target);
    this.client.on('error', () => { /* surfaced per command as DatastoreUnavailable */ });
    this.keepConnected(this.client, 'data');
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
      this.coalesceWrites();
      const r = await command();
      if (probe) this.suspendedUntil = 0;
      return r;
    } catch (err) {
      throw this.failure(err, probe);
    } finally {
      if (probe) this.probing = false;
    }
  }

  /**
   * Holds the connection's writes until the I/O callbacks of this turn of the event loop have run, so the commands
   * of every request that turn go out in one write: each write is a syscall, whose kernel time callgrind does not
   * count but the CPU does. Measured (docs/performance.md, "State-store round trips per request"): about a quarter
   * less CPU per completion and per tools/call at 16 and 64 connections. Unlike ioredis's auto-pipelining, no
   * command waits for another's answer (it serialises its pipelines, which cost a completion 0.15 ms at one
   * connection), and each command keeps its own timeout. A Cluster client has a socket per node: not corked.
   */
  private coalesceWrites(): void {
    if (this.corked || this.client instanceof Cluster) return;
    const stream = this.client.stream;
    if (!stream) return;
    this.corked = true;
    stream.cork();
    setImmediate(() => {
      this.corked = false;
      stream.uncork();
    });
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

  /** The servers a SCAN must walk: every master of a Cluster, else the one client. */
  private scanTargets(): Array<Pick<RedisClient, 'scan'>> {
    return this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
  }

  async incr(key: string, by: number, ttlMs: number, refreshTtl = false): Promise<CounterResult> {
    const cmd = (this.client as unknown as { tgIncr: (k: string, ...a: string[]) => Promise<[string, number]> }).tgIncr;
    const [v, ttl] = await this.call(() => cmd.call(this.client, this.prefix + key, String(by), String(Math.max(0, Math.round(ttlMs))), refreshTtl ? '1' : '0'));
    return { value: Number(v), ttlMs: Number(ttl) };
  }

  async incrIfExists(key: string, by: number, ttlMs: number): Promise<number | undefined> {
    const cmd = (this.client as unknown as { tgIncrIfExists: (k: string, ...a: string[]) => Promise<string | null> }).tgIncrIfExists;
    const v = await this.call(() => cmd.call(this.client, this.prefix + key, String(by), String(Math.max(0, Math.round(ttlMs)))));
    return v === null ? undefined : Number(v);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const k = this.prefix + key;
    const r = ttlMs > 0 ? await this.call(() => this.client.set(k, value, 'PX', Math.round(ttlMs), 'NX')) : await this.call(() => this.client.set(k, value, 'NX'));
    return r === 'OK';
  }

  async getNumber(key: string): Promise<number> {
    const v = await this.call(() => this.client.get(this.prefix + key));
    return v === null ? 0 : Number(v) || 0;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.call(() => this.client.get(this.prefix + key))) ?? undefined;
  }

  async getBuffer(key: string): Promise<Buffer | undefined> {
    return (await this.call(() => this.client.getBuffer(this.prefix + key))) ?? undefined;
  }

  async set(key: string, value: string | Buffer, ttlMs?: number): Promise<void> {
    const k = this.prefix + key;
    if (ttlMs && ttlMs > 0) await this.call(() => this.client.set(k, value, 'PX', Math.round(ttlMs)));
    else await this.call(() => this.client.set(k, value));
  }

  async setCached(key: string, value: string | Buffer, ttlMs: number): Promise<void> {
    await this.set(key, value, ttlMs);
  }

  async ttl(key: string): Promise<number> {
    return this.call(() => this.client.pttl(this.prefix + key));
  }

  /** Deletes keys; returns how many existed. On a Cluster one DEL per key, as the keys may be in different slots. */
  async del(...keys: string[]): Promise<void> {
    await this.delCount(keys.map((k) => this.prefix + k));
  }

  /** `keys`: full key names (with the prefix). */
  private async delCount(keys: string[]): Promise<number> {
    if (!keys.length) return 0;
    if (!(this.client instanceof Cluster)) return this.call(() => this.client.del(...keys));
    const counts = await Promise.all(keys.map((k) => this.call(() => this.client.del(k))));
    return counts.reduce((a, b) => a + b, 0);
  }

  async delPrefix(prefix: string): Promise<number> {
    const counts = await Promise.all(this.scanTargets().map((node) => this.delPrefixOn(node, prefix)));
    return counts.reduce((a, b) => a + b, 0);
  }

  /** SCAN matches and returns full key names (on a Cluster node too): the prefix is part of the pattern. */
  private async delPrefixOn(node: Pick<RedisClient, 'scan'>, prefix: string): Promise<number> {
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await this.call(() => node.scan(cursor, 'MATCH', `${this.prefix}${prefix}*`, 'COUNT', 500));
      cursor = next;
      n += await this.delCount(keys);
    } while (cursor !== '0');
    return n;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.call(() => this.client.publish(this.prefix + channel, message));
  }

  async subscribe(channel: string, onMessage: (message: string) => void) {
    const full = this.prefix + channel;
    if (!this.sub) {
      this.sub = subscriberOf(this.client);
      this.sub.on('error', () => undefined);
      this.keepConnected(this.sub, 'pub/sub');
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

  private keepConnected(client: RedisClient, connection: string): void {
    reconnectWhenEnded(client, () => this.closed, () => {
      this.log.warn('redis: the client gave up after a Sentinel failover; connecting again through the sentinels', { connection });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.sub?.disconnect();
    this.client.disconnect();
  }
}
