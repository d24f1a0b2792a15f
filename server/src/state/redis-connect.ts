// Opens the ioredis client of a RedisTarget: one server, a Sentinel-managed primary or a Cluster (docs/scaling.md).
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisAuth, RedisTarget } from '../config/redis.ts';

export type RedisClient = Redis | Cluster;

/**
 * How long one command may take. Redis answers in well under a millisecond; one that does not answer at all (a
 * frozen process, a black-holed network) would otherwise hold every proxy request that touches it forever.
 */
export const COMMAND_TIMEOUT_MS = 1000;

// Every data connection fails fast instead of queueing while Redis is away (the callers fall back or refuse), and
// never resends a command whose answer was lost with its connection: the server may already have applied it, and
// an increment applied twice is a double charge. Such a command fails as timed out instead; the budget ledger then
// rebuilds the window from the durable copy (server/src/budgets/ledger.ts), which counts it once.
const DATA: RedisOptions = {
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  connectTimeout: 3000,
  commandTimeout: COMMAND_TIMEOUT_MS,
  autoResendUnfulfilledCommands: false,
};

function authOptions(a: RedisAuth): RedisOptions {
  return { username: a.username, password: a.password, ...(a.tls ? { tls: {} } : {}) };
}

/**
 * A primary demoted by a failover answers writes with READONLY until the client follows the new one: reconnect
 * (through the sentinels, to the current primary) and resend that command, which the replica did not apply.
 */
const followPrimary = (err: Error) => (/^READONLY/.test(err.message) ? 2 : false);

function sentinelOptions(t: Extract<RedisTarget, { kind: 'sentinel' }>): RedisOptions {
  return {
    ...authOptions(t.auth),
    sentinels: t.sentinels,
    name: t.name,
    sentinelPassword: t.sentinelPassword,
    enableTLSForSentinelMode: t.auth.tls,
    // Listens for +switch-master on the sentinels, so a failover is followed at once rather than at the next error.
    failoverDetector: true,
    reconnectOnError: followPrimary,
  };
}

function clusterOptions(t: Extract<RedisTarget, { kind: 'cluster' }>): ClusterOptions {
  return {
    enableOfflineQueue: false,
    // Reads go to the masters: a replica may lag behind a counter or a budget window.
    scaleReads: 'master',
    redisOptions: { ...DATA, ...authOptions(t.auth) },
  };
}

/**
 * The data client. It has no ioredis `keyPrefix`: the caller adds its prefix to each key itself (RedisState), which
 * costs a string concatenation where ioredis's option walks every command's arguments for their keys (about 2,500
 * instructions per command, measured under callgrind).
 */
export function connectRedis(target: RedisTarget): RedisClient {
  if (target.kind === 'cluster') return new Cluster(target.nodes, clusterOptions(target));
  const own: RedisOptions = { ...DATA, lazyConnect: false };
  if (target.kind === 'url') return new Redis(target.url, own);
  return new Redis({ ...sentinelOptions(target), ...own });
}

/** How long an ended Sentinel client waits before connecting again (see reconnectWhenEnded). */
export const RECONNECT_ENDED_MS = 200;

/**
 * Connects a Sentinel client again when ioredis has ended it without being asked to. ioredis ends a client for good
 * when its connect attempt fails in the connector rather than on the socket, and the failover detector causes exactly
 * that: a +switch-master that arrives while the client is asking the sentinels for the primary (it is reconnecting
 * after the old primary died) disconnects the connector mid-attempt, and the client ends instead of retrying. Found by
 * test/redis-sentinel.test.ts on a loaded host; without this the gateway would run without Redis until restarted.
 * `closed` says whether the owner closed it (then it stays closed); `onReconnect` is told before each new attempt.
 */
export function reconnectWhenEnded(client: RedisClient, closed: () => boolean, onReconnect: () => void): void {
  if (client instanceof Cluster || !client.options.sentinels) return;
  client.on('end', () => {
    if (closed()) return;
    setTimeout(() => {
      if (closed() || client.status !== 'end') return;
      onReconnect();
      // A failure here ends the client again, and 'end' brings it back here.
      client.connect().catch(() => undefined);
    }, RECONNECT_ENDED_MS).unref();
  });
}

/**
 * How the pub/sub connection differs from the data client: it queues while reconnecting and re-subscribes, so a
 * subscription outlives a restart or a failover. It also resends what a dropped connection left unanswered: ioredis
 * counts a channel as subscribed only once the server's reply arrives, so a connection lost between the renewed
 * SUBSCRIBE and its reply would otherwise leave the client subscribed to nothing (a Sentinel failover does that; see
 * test/faults/redis-resubscribe.test.ts). A repeated SUBSCRIBE is harmless, unlike a repeated increment.
 */
const SUBSCRIBER: RedisOptions = { enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined, autoResendUnfulfilledCommands: true };

/**
 * The pub/sub connection: a copy of a Sentinel client asks the sentinels for the current primary, and a Cluster's
 * subscriber moves to another node when its node goes.
 */
export function subscriberOf(client: RedisClient): RedisClient {
  if (client instanceof Cluster) {
    return client.duplicate(undefined, { enableOfflineQueue: true, redisOptions: { ...client.options.redisOptions, ...SUBSCRIBER } });
  }
  return client.duplicate(SUBSCRIBER);
}
