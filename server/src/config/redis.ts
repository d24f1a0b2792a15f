// Where the Redis state store is: one server (REDIS_URL), a Sentinel-managed primary or a Redis Cluster
// (docs/scaling.md). Read once at start; a bad combination stops the process with one line naming the variables.
// config.ts imports this module; ConfigError is only used inside functions, so the import cycle is harmless.
import { ConfigError } from './config.ts';

type Env = Record<string, string | undefined>;

export interface RedisNode {
  host: string;
  port: number;
}

/** Credentials and TLS of the data nodes; for Sentinel and Cluster only (REDIS_URL carries its own). */
export interface RedisAuth {
  username: string | undefined;
  password: string | undefined;
  tls: boolean;
}

export type RedisTarget =
  | { kind: 'url'; url: string }
  | { kind: 'sentinel'; sentinels: RedisNode[]; name: string; sentinelPassword: string | undefined; auth: RedisAuth }
  | { kind: 'cluster'; nodes: RedisNode[]; auth: RedisAuth };

const SENTINELS = 'TOLLGATE_REDIS_SENTINELS';
const SENTINEL_NAME = 'TOLLGATE_REDIS_SENTINEL_NAME';
const SENTINEL_PASSWORD = 'TOLLGATE_REDIS_SENTINEL_PASSWORD';
const CLUSTER_NODES = 'TOLLGATE_REDIS_CLUSTER_NODES';
const AUTH_VARS = ['TOLLGATE_REDIS_USERNAME', 'TOLLGATE_REDIS_PASSWORD', 'TOLLGATE_REDIS_TLS'] as const;

const set = (env: Env, name: string) => (env[name] ?? '') !== '';

/** `host:port,host:port` (a bracketed IPv6 address as `[::1]:26379`). */
function nodeList(env: Env, name: string): RedisNode[] {
  const entries = (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!entries.length) throw new ConfigError(name, 'must list at least one host:port');
  return entries.map((entry) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):(\d{1,5})$/.exec(entry);
    const port = m ? Number(m[2]) : NaN;
    if (!m || port < 1 || port > 65535) throw new ConfigError(name, `"${entry}" is not host:port`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

function auth(env: Env): RedisAuth {
  const tls = (env.TOLLGATE_REDIS_TLS ?? '').toLowerCase();
  if (!['', 'true', 'false', '1', '0'].includes(tls)) throw new ConfigError('TOLLGATE_REDIS_TLS', `must be true or false, got "${env.TOLLGATE_REDIS_TLS}"`);
  return {
    username: env.TOLLGATE_REDIS_USERNAME || undefined,
    password: env.TOLLGATE_REDIS_PASSWORD || undefined,
    tls: tls === 'true' || tls === '1',
  };
}

/** Refuses the combinations that leave it unclear which Redis is meant. */
function checkCombination(env: Env, url: string | undefined): void {
  const sentinel = set(env, SENTINELS);
  const cluster = set(env, CLUSTER_NODES);
  if (sentinel && cluster) throw new ConfigError(SENTINELS, `and ${CLUSTER_NODES} are both set: choose Sentinel or Cluster`);
  const other = sentinel ? SENTINELS : cluster ? CLUSTER_NODES : undefined;
  if (url && other) throw new ConfigError('REDIS_URL', `and ${other} are both set: REDIS_URL is for one Redis server; leave it empty with ${other}`);
  const sentinelOnly = [SENTINEL_NAME, SENTINEL_PASSWORD].find((v) => set(env, v));
  if (!sentinel && sentinelOnly) throw new ConfigError(sentinelOnly, `is set without ${SENTINELS}`);
  const stray = AUTH_VARS.find((v) => set(env, v));
  if (!other && stray) {
    throw new ConfigError(stray, `applies to ${SENTINELS} or ${CLUSTER_NODES}; with REDIS_URL put the credentials and rediss:// in the URL`);
  }
}

/** The Redis the state store uses, or undefined for the in-process store. `url` is REDIS_URL, already checked. */
export function redisTarget(env: Env, url: string | undefined): RedisTarget | undefined {
  checkCombination(env, url);
  if (url) return { kind: 'url', url };
  if (set(env, SENTINELS)) {
    const name = env[SENTINEL_NAME] ?? '';
    if (!name) throw new ConfigError(SENTINEL_NAME, `is required with ${SENTINELS} (the primary's name in the sentinels' configuration, e.g. mymaster)`);
    return { kind: 'sentinel', sentinels: nodeList(env, SENTINELS), name, sentinelPassword: env[SENTINEL_PASSWORD] || undefined, auth: auth(env) };
  }
  if (set(env, CLUSTER_NODES)) return { kind: 'cluster', nodes: nodeList(env, CLUSTER_NODES), auth: auth(env) };
  return undefined;
}
