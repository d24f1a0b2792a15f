// The part of reconciling a proxy that both kinds share: find (or adopt) the remote record, create it when there is
// none, else PATCH only the fields that differ; and on cleanup, delete it (or, with deletionPolicy Orphan, leave it
// without the operator's mark). What differs is decided by pure functions of each kind (mcpPatch, llmPatch), tested
// without a server.
import type { ApiClient, ApiResult } from '@tollgate/contract';
import { remoteProxyName, uidOfRemoteName } from '../kinds/identity.ts';
import type { DeletionPolicy, Kind } from '../kinds/specs.ts';
import { waiting, type Outcome } from './outcome.ts';
import { apiFailure, deleted } from './remote.ts';
import type { ObjectIndex } from './types.ts';

/**
 * The calls on one kind of proxy, one route of the typed client each, so the record, create and patch types come
 * from the contract (MCP_ROUTES in mcp-proxy.ts, LLM_ROUTES in llm-proxy.ts).
 */
export interface ProxyRoutes<R, Create, Patch> {
  what: string;
  whats: string;
  /** The write-only field of a PATCH and how to name it in an Event. */
  secretField: keyof Patch & string;
  secretLabel: string;
  list(api: ApiClient): Promise<ApiResult<R[]>>;
  read(api: ApiClient, id: string): Promise<ApiResult<R>>;
  create(api: ApiClient, body: Create): Promise<ApiResult<R>>;
  /** Answers the record as it is after the change. */
  update(api: ApiClient, id: string, body: Patch): Promise<ApiResult<R>>;
  remove(api: ApiClient, id: string): Promise<ApiResult<unknown>>;
}

type Lookup<R> = Pick<ProxyRoutes<R, never, never>, 'list' | 'read' | 'what' | 'whats'>;

export type Found<R> = { ok: true; remote: R | undefined; adopted?: boolean } | { ok: false; outcome: Outcome };

/** Which remote proxy is the object's: the id in its status, the UID in the remote name, or spec.adoptId. */
export interface Whose {
  statusId: unknown;
  uid: string;
  adoptId?: string;
  /** The Kubernetes object with this UID (`LlmProxy ns/name`), for the message of a refused adoption. */
  owner?: (uid: string) => string | undefined;
}

/** The object of `kind` with this UID in the informer caches, as `Kind namespace/name`. */
export function ownerIn(objects: ObjectIndex, kind: Kind): (uid: string) => string | undefined {
  return (uid) => {
    const o = objects.list(kind).find((x) => x.metadata.uid === uid);
    return o && `${kind} ${o.metadata.namespace}/${o.metadata.name}`;
  };
}

/**
 * spec.adoptId, looked at only while the object has no remote id of its own: the record is taken over unless its name
 * carries another object's UID. Its name gets this object's UID with the first PATCH (which is what marks it taken).
 */
async function adoptProxy<R extends { id: string; name: string }>(api: ApiClient, k: Lookup<R>, id: string, whose: Whose): Promise<Found<R>> {
  const { uid } = whose;
  const r = await k.read(api, id);
  if (!r.ok && r.error.status === 404) {
    return { ok: false, outcome: waiting('AdoptionTargetMissing', `${k.what} ${id} (spec.adoptId) does not exist for the user of this object's connection`, {}, 60_000) };
  }
  if (!r.ok) return { ok: false, outcome: apiFailure(r.error, `Reading the ${k.what} to adopt`) };
  const owner = uidOfRemoteName(r.body.name);
  if (owner && owner !== uid) {
    const who = whose.owner?.(owner) ?? 'the Kubernetes object';
    const message = `${k.what} ${id} (spec.adoptId) is owned by ${who} with UID ${owner} (its name "${r.body.name}" carries it); delete that object with deletionPolicy Orphan first`;
    return { ok: false, outcome: waiting('AdoptionRefused', message, {}, 60_000) };
  }
  return { ok: true, remote: r.body, adopted: owner !== uid };
}

/**
 * The remote proxy of an object: by the id in its status, else (first create, or the status write was lost in a crash,
 * or the record was deleted behind the operator's back) the one whose name carries the object's UID, else the one
 * spec.adoptId names.
 */
export async function findRemoteProxy<R extends { id: string; name: string }>(api: ApiClient, k: Lookup<R>, whose: Whose): Promise<Found<R>> {
  const { statusId, uid, adoptId } = whose;
  if (typeof statusId === 'string' && statusId) {
    const r = await k.read(api, statusId);
    if (r.ok) return { ok: true, remote: r.body };
    if (r.error.status !== 404) return { ok: false, outcome: apiFailure(r.error, `Reading the ${k.what}`) };
  }
  if (adoptId && statusId === undefined) return adoptProxy(api, k, adoptId, whose);
  // Only the name carries the UID, so finding the record without an id means looking through all of them.
  const all = await k.list(api);
  if (!all.ok) return { ok: false, outcome: apiFailure(all.error, `Listing the ${k.whats}`) };
  return { ok: true, remote: all.body.find((p) => uidOfRemoteName(p.name) === uid) };
}

/**
 * Deletes the object's remote proxy, wherever findRemoteProxy finds it; undefined when it is gone. With deletionPolicy
 * Orphan it stays, renamed to drop the object's UID, so that another object can adopt it (and a restarted operator
 * does not take it for this one's).
 */
export async function deleteRemoteProxy<R extends { id: string; name: string }>(
  api: ApiClient, k: Lookup<R> & Pick<ProxyRoutes<R, never, { name?: string }>, 'remove' | 'update'>, whose: Whose & { policy: DeletionPolicy },
): Promise<Outcome | undefined> {
  const found = await findRemoteProxy(api, k, { statusId: whose.statusId, uid: whose.uid });
  if (!found.ok) return found.outcome;
  if (!found.remote) return undefined;
  if (whose.policy === 'Delete') return deleted(await k.remove(api, found.remote.id), k.what);
  const name = unmarkedName(found.remote.name, whose.uid);
  if (name === found.remote.name) return undefined;
  const r = await k.update(api, found.remote.id, { name });
  return r.ok || r.error.status === 404 ? undefined : apiFailure(r.error, `Removing the object's UID from the name of the ${k.what}`);
}

/** The remote name without the ` [k8s:<uid>]` mark of this object. */
export function unmarkedName(name: string, uid: string): string {
  const suffix = remoteProxyName('', uid);
  return name.endsWith(suffix) ? name.slice(0, -suffix.length) : name;
}

export type Synced<R> =
  | { ok: true; remote: R; created: boolean; changed: string[]; event?: Outcome['event'] }
  | { ok: false; outcome: Outcome };

export async function syncProxy<R extends { id: string; name: string }, Create, Patch extends object>(
  api: ApiClient,
  k: ProxyRoutes<R, Create, Patch>,
  target: Whose & { create: Create; patchOf(remote: R): Patch },
): Promise<Synced<R>> {
  const found = await findRemoteProxy(api, k, target);
  if (!found.ok) return found;
  if (!found.remote) {
    const r = await k.create(api, target.create);
    if (!r.ok) return { ok: false, outcome: apiFailure(r.error, `Creating the ${k.what}`) };
    return { ok: true, remote: r.body, created: true, changed: [], event: { type: 'Normal', reason: 'Created', message: `Created ${k.what} ${r.body.id}` } };
  }
  const patch = target.patchOf(found.remote);
  const changed = Object.keys(patch);
  if (!changed.length) return { ok: true, remote: found.remote, created: false, changed };
  const r = await k.update(api, found.remote.id, patch);
  if (!r.ok) return { ok: false, outcome: apiFailure(r.error, `Updating the ${k.what}`) };
  const names = changed.map((f) => (f === k.secretField ? k.secretLabel : f)).join(', ');
  const event: Outcome['event'] = found.adopted
    ? { type: 'Normal', reason: 'Adopted', message: `Adopted ${k.what} ${r.body.id} and updated ${names}` }
    : { type: 'Normal', reason: 'Updated', message: `Updated ${names}` };
  return { ok: true, remote: r.body, created: false, changed, event };
}
