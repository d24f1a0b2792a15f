// The operator's environment (docs/kubernetes.md#environment) and its one flag. Bad values stop the process at start
// with one line naming the variable or flag.
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { AllowListError, ApiUrlAllowList } from './reconcile/api-url-allow-list.ts';
import { LabelSelectorError, parseLabelSelector } from './kube/label-selector.ts';
import type { WatchScope } from './kube/watched-namespaces.ts';

export interface OperatorConfig {
  /** Every namespace, a list of them, or those a label selector matches (kube/watched-namespaces.ts). */
  watch: WatchScope;
  resyncMs: number;
  secretPollMs: number;
  stallMs: number;
  watchTimeoutS: number;
  workers: number;
  host: string;
  port: number;
  identity: string;
  leaseNamespace: string;
  leaseName: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** The management API URLs connection Secrets may name; undefined: not set, every URL (warned about at start). */
  allowedApiUrls?: ApiUrlAllowList;
}

export const ALLOWED_API_URLS_ENV = 'TOLLGATE_OPERATOR_ALLOWED_API_URLS';
export const ALLOWED_API_URLS_FLAG = '--allowed-api-urls';

export class ConfigError extends Error {}

/** Bounds travel together so a call reads as one setting: name, default and accepted range. */
interface IntRange { def: number; min: number; max: number }

function int(env: NodeJS.ProcessEnv, name: string, { def, min, max }: IntRange): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return n;
}

const SA_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

function ownNamespace(env: NodeJS.ProcessEnv): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try { return readFileSync(SA_NAMESPACE_FILE, 'utf8').trim() || 'default'; } catch { return 'default'; }
}

/** `--allowed-api-urls LIST` (or `=LIST`; repeated: the lists are joined), else the variable; undefined when neither is set. */
function allowedApiUrls(env: NodeJS.ProcessEnv, argv: readonly string[]): ApiUrlAllowList | undefined {
  const given: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    if ((eq < 0 ? arg : arg.slice(0, eq)) !== ALLOWED_API_URLS_FLAG) {
      throw new ConfigError(`unknown argument ${JSON.stringify(arg)}: the operator takes ${ALLOWED_API_URLS_FLAG} and otherwise reads its environment (docs/kubernetes.md)`);
    }
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new ConfigError(`${ALLOWED_API_URLS_FLAG} needs a value: comma-separated management API URLs`);
    given.push(value);
  }
  const [name, raw] = given.length ? [ALLOWED_API_URLS_FLAG, given.join(',')] : [ALLOWED_API_URLS_ENV, env[ALLOWED_API_URLS_ENV]];
  if (raw === undefined || (name === ALLOWED_API_URLS_ENV && raw.trim() === '')) return undefined;
  try {
    return ApiUrlAllowList.parse(raw);
  } catch (err) {
    if (err instanceof AllowListError) throw new ConfigError(`${name}: ${err.message}`);
    throw err;
  }
}

export const WATCH_NAMESPACE_ENV = 'TOLLGATE_WATCH_NAMESPACE';
export const WATCH_NAMESPACES_ENV = 'TOLLGATE_WATCH_NAMESPACES';
export const WATCH_SELECTOR_ENV = 'TOLLGATE_WATCH_NAMESPACE_SELECTOR';

const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function namespaceList(name: string, raw: string): string[] {
  const items = raw.split(',').map((n) => n.trim());
  items.forEach((n, i) => {
    if (!n) throw new ConfigError(`${name}: item ${i + 1} is empty (a comma-separated list of namespaces, e.g. team-a,team-b)`);
    if (!NAMESPACE_NAME.test(n)) throw new ConfigError(`${name}: ${JSON.stringify(n)} is not a namespace name (lower-case letters, digits and -, at most 63)`);
  });
  return [...new Set(items)];
}

/** TOLLGATE_WATCH_NAMESPACE (one), TOLLGATE_WATCH_NAMESPACES (a list) or the selector: at most one of them, else all. */
function watchScope(env: NodeJS.ProcessEnv): WatchScope {
  const set = [WATCH_NAMESPACE_ENV, WATCH_NAMESPACES_ENV, WATCH_SELECTOR_ENV].filter((n) => (env[n] ?? '').trim() !== '');
  if (set.length > 1) throw new ConfigError(`${set.join(' and ')} are set together: set one (namespaces by name, or a namespace label selector), or none for every namespace`);
  const [name] = set;
  if (!name) return { mode: 'all' };
  const raw = env[name]!;
  if (name !== WATCH_SELECTOR_ENV) return { mode: 'list', namespaces: namespaceList(name, raw) };
  try {
    return { mode: 'selector', selector: parseLabelSelector(raw) };
  } catch (err) {
    if (err instanceof LabelSelectorError) throw new ConfigError(`${WATCH_SELECTOR_ENV}: ${err.message}`);
    throw err;
  }
}

/** The watch scope for the start log line. */
export function describeWatchScope(w: WatchScope): string {
  if (w.mode === 'all') return '(all)';
  return w.mode === 'list' ? w.namespaces.join(',') : `(labels: ${w.selector})`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = []): OperatorConfig {
  const leaseS = int(env, 'TOLLGATE_OPERATOR_LEASE_S', { def: 15, min: 2, max: 600 });
  return {
    watch: watchScope(env),
    resyncMs: int(env, 'TOLLGATE_OPERATOR_RESYNC_S', { def: 300, min: 1, max: 86_400 }) * 1000,
    secretPollMs: int(env, 'TOLLGATE_OPERATOR_SECRET_POLL_S', { def: 10, min: 0, max: 3600 }) * 1000,
    stallMs: int(env, 'TOLLGATE_OPERATOR_WATCH_STALL_S', { def: 150, min: 1, max: 3600 }) * 1000,
    watchTimeoutS: int(env, 'TOLLGATE_OPERATOR_WATCH_TIMEOUT_S', { def: 290, min: 1, max: 3600 }),
    workers: int(env, 'TOLLGATE_OPERATOR_WORKERS', { def: 4, min: 1, max: 64 }),
    host: env.TOLLGATE_OPERATOR_HOST || '127.0.0.1',
    port: int(env, 'TOLLGATE_OPERATOR_PORT', { def: 8083, min: 0, max: 65_535 }),
    identity: env.POD_NAME || `${hostname()}-${process.pid}`,
    leaseNamespace: env.TOLLGATE_OPERATOR_LEASE_NAMESPACE || ownNamespace(env),
    leaseName: env.TOLLGATE_OPERATOR_LEASE_NAME || 'tollgate-operator',
    leaseDurationMs: leaseS * 1000,
    renewDeadlineMs: Math.max(1000, Math.floor(leaseS * 1000 * 2 / 3)),
    retryPeriodMs: Math.max(500, Math.floor(leaseS * 1000 / 7.5)),
    allowedApiUrls: allowedApiUrls(env, argv),
  };
}
