// Deployment configuration, read once from the environment. Bad values stop the process with one line naming the
// variable, so nothing runs on a half-understood configuration (docs/architecture.md#processes-ports-and-configuration).
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { parseCidr, PROVIDER_IDS, type Cidr, type ProviderId } from '@tollgate/contract';
import { redisTarget, type RedisTarget } from './redis.ts';

export type Role = 'all' | 'api' | 'gateway';

export interface Config {
  host: string;
  apiPort: number;
  gatewayPort: number;
  gatewayAdminPort: number;
  proxyDomain: string;
  /** Public host names the gateway serves besides its own (DNS-rebinding protection): exact or `*.domain`. */
  gatewayPublicHosts: string[];
  databaseUrl: string | undefined;
  /** PostgreSQL schema to use (tests isolate themselves with one schema each). */
  dbSchema: string | undefined;
  redisUrl: string | undefined;
  /** The Redis of the state store: REDIS_URL, Sentinel or Cluster (config/redis.ts); undefined: in-process. */
  redis: RedisTarget | undefined;
  /** Redis key prefix (tests isolate themselves with one prefix each). */
  redisPrefix: string;
  dataDir: string;
  /** Embedded mode, Linux: the nice value of the database's thread (server/src/db/pglite-worker.ts). */
  pgliteNice: number;
  masterKey: Buffer | undefined;
  upstreamAllowCidrs: Cidr[];
  upstreamAllowHttp: boolean;
  /** Development and tests: the API checks each documented answer against its contract schema (500 on a mismatch). */
  checkResponses: boolean;
  providerBaseUrls: Partial<Record<ProviderId, string>>;
  /** Origin allowed to use the dashboard session cookie on unsafe methods; unset means same-origin only. */
  dashboardOrigin: string | undefined;
  /** The dashboard's built files (dashboard/dist), served by the API at `/`; absent, `/` says how to build them. */
  dashboardDir: string;
  auditRetentionDays: number;
  /** How often the gateway checks the config version to repair missed notifications. */
  configPollMs: number;
  /** Bound of the in-process state's cache entries (static_cache answers) without Redis; oldest go first. */
  memoryCacheMb: number;
  /** How often DNS pins are refreshed. */
  repinIntervalMs: number;
  /** How long an MCP upstream may take to start its answer (status and headers) before the client gets 504. */
  mcpUpstreamTimeoutMs: number;
  /** The same for LLM providers (a long completion starts late), and the longest silence allowed inside their answer. */
  llmUpstreamTimeoutMs: number;
  /** How often a gateway records how far its streamed LLM answers have got (docs/faults.md, "A gateway that dies"). */
  streamCheckpointMs: number;
  /** How long a stream's record may go without an update before another gateway charges it as its gateway's loss. */
  streamOrphanMs: number;
  /** Bytes of request bodies one gateway process holds at once (docs/gateway.md, "What a request may cost"). */
  gatewayBodyBudgetMb: number;
  /** Gateway worker processes sharing the gateway's port (TOLLGATE_GATEWAY_WORKERS; docs/scaling.md). */
  gatewayWorkers: number;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`${variable}: ${reason}`);
  }
}

type Env = Record<string, string | undefined>;

interface IntegerRule { min: number; max: number; what: string }

/** An integer variable: dflt when unset or empty, else an integer from min to max, or a ConfigError saying `must be ${what}`. */
function integer(env: Env, name: string, dflt: number, { min, max, what }: IntegerRule): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(name, `must be ${what}, got "${raw}"`);
  return n;
}

const PORT: IntegerRule = { min: 0, max: 65535, what: 'a port number' };
const POSITIVE: IntegerRule = { min: 1, max: Infinity, what: 'a positive integer' };
// Only lowering a thread's priority needs no privilege, so negative values are refused rather than failing later.
const NICE: IntegerRule = { min: 0, max: 19, what: 'an integer from 0 to 19' };

const port = (env: Env, name: string, dflt: number) => integer(env, name, dflt, PORT);
const positiveInt = (env: Env, name: string, dflt: number) => integer(env, name, dflt, POSITIVE);

function bool(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(u.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  return raw;
}

export function parseMasterKey(raw: string | undefined, name = 'TOLLGATE_MASTER_KEY'): Buffer | undefined {
  if (raw === undefined || raw === '') return undefined;
  const buf = Buffer.from(raw, 'base64');
  if (buf.length !== 32 || buf.toString('base64').replace(/=+$/, '') !== raw.trim().replace(/=+$/, '')) {
    throw new ConfigError(name, 'must be the base64 encoding of exactly 32 bytes (openssl rand -base64 32)');
  }
  return buf;
}

function cidrs(env: Env, name: string): Cidr[] {
  const raw = env[name];
  if (!raw) return [];
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const c = parseCidr(s);
    if (!c) throw new ConfigError(name, `"${s}" is not an IP address or CIDR`);
    return c;
  });
}

/** A comma-separated list of host names, `*.domain` wildcards or IP addresses (no scheme, port or path). */
function hostList(env: Env, name: string): string[] {
  const raw = env[name];
  if (!raw) return [];
  return raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean).map((entry) => {
    const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry;
    if (isIP(bare)) return entry;
    const host = entry.startsWith('*.') ? entry.slice(2) : entry;
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)) {
      throw new ConfigError(name, `"${entry}" is not a host name, a "*.domain" wildcard or an IP address (no scheme, port or path)`);
    }
    return entry;
  });
}

function providerUrls(env: Env): Partial<Record<ProviderId, string>> {
  const providerBaseUrls: Partial<Record<ProviderId, string>> = {};
  for (const p of PROVIDER_IDS) {
    const v = url(env, `TOLLGATE_PROVIDER_BASE_URL_${p.toUpperCase()}`, ['http:', 'https:']);
    if (v) providerBaseUrls[p] = v.replace(/\/+$/, '');
  }
  return providerBaseUrls;
}

function proxyDomainOf(env: Env): string {
  const proxyDomain = (env.TOLLGATE_PROXY_DOMAIN ?? 'proxy.localhost').trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(proxyDomain)) {
    throw new ConfigError('TOLLGATE_PROXY_DOMAIN', `"${proxyDomain}" is not a DNS name`);
  }
  return proxyDomain;
}

function dbSchemaOf(env: Env): string | undefined {
  const dbSchema = env.TOLLGATE_DB_SCHEMA || undefined;
  if (dbSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(dbSchema)) {
    throw new ConfigError('TOLLGATE_DB_SCHEMA', 'must be a lower-case SQL identifier');
  }
  return dbSchema;
}

/** A positive count, or `auto`: one per core the process may use. */
export function workerCount(raw: string | undefined, name: string): number {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'auto') return availableParallelism();
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 256) throw new ConfigError(name, `must be a number of workers from 1 to 256 or "auto", got "${raw}"`);
  return n;
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const masterKey = parseMasterKey(env.TOLLGATE_MASTER_KEY);
  if (databaseUrl && !masterKey) {
    throw new ConfigError('TOLLGATE_MASTER_KEY', 'is required when DATABASE_URL is set (openssl rand -base64 32)');
  }
  const providerBaseUrls = providerUrls(env);
  const proxyDomain = proxyDomainOf(env);
  const dbSchema = dbSchemaOf(env);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  return {
    host: env.TOLLGATE_HOST || '127.0.0.1',
    apiPort: port(env, 'TOLLGATE_API_PORT', 8080),
    gatewayPort: port(env, 'TOLLGATE_GATEWAY_PORT', 8081),
    gatewayAdminPort: port(env, 'TOLLGATE_GATEWAY_ADMIN_PORT', 8082),
    proxyDomain,
    gatewayPublicHosts: hostList(env, 'TOLLGATE_GATEWAY_PUBLIC_HOSTS'),
    databaseUrl,
    dbSchema,
    redisUrl,
    redis: redisTarget(env, redisUrl),
    redisPrefix: env.TOLLGATE_REDIS_PREFIX ?? 'tollgate:',
    dataDir: resolve(env.TOLLGATE_DATA_DIR || '.tollgate'),
    pgliteNice: integer(env, 'TOLLGATE_PGLITE_NICE', 0, NICE),
    masterKey,
    upstreamAllowCidrs: cidrs(env, 'TOLLGATE_UPSTREAM_ALLOW_CIDRS'),
    upstreamAllowHttp: bool(env, 'TOLLGATE_UPSTREAM_ALLOW_HTTP'),
    checkResponses: bool(env, 'TOLLGATE_CHECK_RESPONSES'),
    providerBaseUrls,
    dashboardOrigin: url(env, 'TOLLGATE_DASHBOARD_ORIGIN', ['http:', 'https:']),
    // server/src/config or server/dist/config: three levels up is the root of the checkout or the image.
    dashboardDir: resolve(env.TOLLGATE_DASHBOARD_DIR || fileURLToPath(new URL('../../../dashboard/dist', import.meta.url))),
    auditRetentionDays: positiveInt(env, 'TOLLGATE_AUDIT_RETENTION_DAYS', 30),
    configPollMs: positiveInt(env, 'TOLLGATE_CONFIG_POLL_MS', 5000),
    memoryCacheMb: positiveInt(env, 'TOLLGATE_MEMORY_CACHE_MB', 64),
    repinIntervalMs: positiveInt(env, 'TOLLGATE_REPIN_INTERVAL_MS', 60_000),
    mcpUpstreamTimeoutMs: positiveInt(env, 'TOLLGATE_MCP_UPSTREAM_TIMEOUT_MS', 300_000),
    llmUpstreamTimeoutMs: positiveInt(env, 'TOLLGATE_LLM_UPSTREAM_TIMEOUT_MS', 600_000),
    streamCheckpointMs: positiveInt(env, 'TOLLGATE_STREAM_CHECKPOINT_MS', 1000),
    streamOrphanMs: positiveInt(env, 'TOLLGATE_STREAM_ORPHAN_MS', 30_000),
    gatewayBodyBudgetMb: positiveInt(env, 'TOLLGATE_GATEWAY_BODY_BUDGET_MB', 64),
    gatewayWorkers: workerCount(env.TOLLGATE_GATEWAY_WORKERS, 'TOLLGATE_GATEWAY_WORKERS'),
  };
}
