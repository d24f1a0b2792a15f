// The config fan-out's subscription survives a connection lost in the middle of re-subscribing. After a reconnect
// ioredis sends SUBSCRIBE again, but it records a channel as subscribed only when the server's reply arrives; a
// connection that drops in between (a Sentinel failover does this: the client follows the promoted replica, then the
// sentinels' +switch-master makes it reconnect once more) used to leave a subscriber subscribed to nothing, and a
// gateway that no longer heard of config changes until its version poll. Found in ioredis's source while diagnosing
// a CI failure of test/redis-sentinel.test.ts (which itself was that test's race: it published once, before the
// subscriber had re-subscribed).
//
// A TCP proxy in front of a private redis-server plays the network: it drops every connection (the failover), then
// cuts the first connection that sends SUBSCRIBE before the server sees it, then lets everything through.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { RedisState } from '@tollgate/server/src/state/redis.ts';
import { PrivateRedis, redisMissing } from './datastores.ts';

const skip = redisMissing ?? false;

/** Forwards to `port`; drop() closes every connection, and the next SUBSCRIBE after a drop closes its own. */
class FlakyLink {
  private readonly open = new Set<Socket>();
  private armed = false;
  cuts = 0;
  readonly server: Server;

  constructor(private readonly port: number) {
    this.server = createServer((client) => this.accept(client));
  }

  listen(): Promise<number> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => resolve((this.server.address() as { port: number }).port)));
  }

  drop(): void {
    this.armed = true;
    for (const s of this.open) s.destroy();
  }

  close(): Promise<void> {
    for (const s of this.open) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const upstream = connect(this.port, '127.0.0.1');
    for (const s of [client, upstream]) {
      this.open.add(s);
      s.on('error', () => undefined);
      s.on('close', () => { this.open.delete(s); client.destroy(); upstream.destroy(); });
    }
    upstream.on('data', (d) => client.write(d));
    client.on('data', (d) => {
      if (this.armed && /subscribe/i.test(d.toString('latin1'))) {
        this.armed = false;
        this.cuts++;
        client.destroy();
        return;
      }
      upstream.write(d);
    });
  }
}

let redis: PrivateRedis;
let link: FlakyLink;
let viaLink: RedisState;
let direct: RedisState;

before(async () => {
  if (skip) return;
  redis = await PrivateRedis.start();
  link = new FlakyLink(redis.port);
  const port = await link.listen();
  const prefix = `rs_${Math.random().toString(36).slice(2)}:`;
  viaLink = new RedisState(`redis://127.0.0.1:${port}`, prefix);
  direct = new RedisState(redis.url, prefix);
  await Promise.all([viaLink.ready(), direct.ready()]);
});

after(async () => {
  if (skip) return;
  await Promise.all([viaLink?.close(), direct?.close()]);
  await link?.close();
  await redis?.close();
});

test('a subscription lost with its connection while it was being renewed is renewed on the next connection', { skip }, async () => {
  const got: string[] = [];
  await viaLink.subscribe('config:changed', (m) => got.push(m));
  await direct.publish('config:changed', '1');
  await eventually(() => got.includes('1'), { what: 'the first message' });

  link.drop();
  // Publish until the subscriber is back: each message says the channel is heard again, not only connected.
  let n = 1;
  await eventually(async () => {
    await direct.publish('config:changed', String(++n)).catch(() => undefined);
    return got.length > 1;
  }, { what: 'the subscription to be renewed after its renewal was cut', timeoutMs: 10_000, intervalMs: 200 });
  assert.equal(link.cuts, 1, 'the link cut one SUBSCRIBE in flight');
});
