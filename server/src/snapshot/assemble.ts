// The snapshot from built entries: every tenant's at once (a full load), or one snapshot's objects with some users'
// replaced by their new ones (an incremental reload). load.ts reads and builds; this puts the maps together, a
// bounded number of entries per turn of the event loop (with 2,000 tenants a snapshot's maps hold about 26,000
// entries, and copying them took 15–18 ms in one piece on the 2-vCPU machine of docs/performance.md).
import { TurnBudget } from '../turns.ts';
import type { ClientCredential, ProxyConfig, Snapshot } from './snapshot.ts';

/** Map entries copied or added per turn of the event loop (about 1 ms here). */
const ENTRIES_PER_TURN = 2000;

/** What one load built from its rows: every proxy, its routes, and the keys (by hash). */
export interface SnapshotEntries {
  proxies: ProxyConfig[];
  routes: Array<{ kind: 'host' | 'path'; match: string; proxyId: string }>;
  credentials: Array<[string, ClientCredential]>;
}

/** The keys of each map of a snapshot that belong to one user, so a reload can drop them when the user changed. */
interface OwnedKeys {
  proxies: string[];
  hosts: string[];
  paths: string[];
  credentials: string[];
}

/** A snapshot with the index of which user owns what in it. */
export interface LoadedConfig {
  snapshot: Snapshot;
  owners: ReadonlyMap<string, OwnedKeys>;
  /** How it was read: every tenant's rows, or the changed users' rows merged into the previous snapshot. */
  read: 'full' | 'incremental';
}

export async function assembleConfig(version: number, entries: SnapshotEntries): Promise<LoadedConfig> {
  const snapshot: Snapshot = { version, proxies: new Map(), hosts: new Map(), paths: new Map(), credentialsByHash: new Map() };
  const owners = new Map<string, OwnedKeys>();
  await add(snapshot, owners, entries, new TurnBudget(ENTRIES_PER_TURN));
  return { snapshot, owners, read: 'full' };
}

/**
 * `previous` without any object of `users`, with `entries` (those users' objects as they are now) added. The maps are
 * new: requests in flight keep reading the snapshot they started with.
 */
export async function mergeConfig(previous: LoadedConfig, version: number, users: readonly string[], entries: SnapshotEntries): Promise<LoadedConfig> {
  const gone = { proxies: new Set<string>(), hosts: new Set<string>(), paths: new Set<string>(), credentials: new Set<string>() };
  for (const user of users) {
    const keys = previous.owners.get(user);
    if (!keys) continue;
    for (const k of ['proxies', 'hosts', 'paths', 'credentials'] as const) for (const key of keys[k]) gone[k].add(key);
  }
  const turns = new TurnBudget(ENTRIES_PER_TURN);
  const p = previous.snapshot;
  const snapshot: Snapshot = {
    version,
    proxies: await copyWithout(p.proxies, gone.proxies, turns),
    hosts: await copyWithout(p.hosts, gone.hosts, turns),
    paths: await copyWithout(p.paths, gone.paths, turns),
    credentialsByHash: await copyWithout(p.credentialsByHash, gone.credentials, turns),
  };
  const owners = await copyWithout(previous.owners as Map<string, OwnedKeys>, new Set(users), turns);
  await add(snapshot, owners, entries, turns);
  return { snapshot, owners, read: 'incremental' };
}

async function copyWithout<V>(from: ReadonlyMap<string, V>, without: ReadonlySet<string>, turns: TurnBudget): Promise<Map<string, V>> {
  const to = new Map<string, V>();
  for (const [key, value] of from) {
    const turn = turns.spend();
    if (turn) await turn;
    if (!without.has(key)) to.set(key, value);
  }
  return to;
}

async function add(snapshot: Snapshot, owners: Map<string, OwnedKeys>, entries: SnapshotEntries, turns: TurnBudget): Promise<void> {
  const keysOf = (user: string): OwnedKeys => {
    let keys = owners.get(user);
    if (!keys) owners.set(user, keys = { proxies: [], hosts: [], paths: [], credentials: [] });
    return keys;
  };
  for (const proxy of entries.proxies) {
    const turn = turns.spend();
    if (turn) await turn;
    snapshot.proxies.set(proxy.id, proxy);
    keysOf(proxy.userId).proxies.push(proxy.id);
  }
  for (const r of entries.routes) {
    const turn = turns.spend();
    if (turn) await turn;
    const keys = keysOf(snapshot.proxies.get(r.proxyId)!.userId);
    (r.kind === 'host' ? snapshot.hosts : snapshot.paths).set(r.match, r.proxyId);
    (r.kind === 'host' ? keys.hosts : keys.paths).push(r.match);
  }
  for (const [hash, credential] of entries.credentials) {
    const turn = turns.spend();
    if (turn) await turn;
    snapshot.credentialsByHash.set(hash, credential);
    keysOf(credential.userId).credentials.push(hash);
  }
}
