// The part of reconciling a proxy that both kinds share: find (or adopt) the remote record, create it when there is
// none, else PATCH only the fields that differ; and on cleanup, delete it. What differs is decided by pure functions
// of each kind (mcpPatch, llmPatch), tested without a server.
import type { ApiClient, ApiResult } from '@tollgate/contract';
import { uidOfRemoteName } from '../kinds/identity.ts';
import type { Outcome } from './outcome.ts';
import { apiFailure, deleted } from './remote.ts';

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

export type Found<R> = { ok: true; remote: R | undefined } | { ok: false; outcome: Outcome };

/**
 * The remote proxy of an object: by the id in its status, else (first create, or the status write was lost in a crash,
 * or the record was deleted behind the operator's back) the one whose name carries the object's UID.
 */
export async function findRemoteProxy<R extends { id: string; name: string }>(api: ApiClient, k: Lookup<R>, statusId: unknown, uid: string): Promise<Found<R>> {
  if (typeof statusId === 'string' && statusId) {
    const r = await k.read(api, statusId);
    if (r.ok) return { ok: true, remote: r.body };
    if (r.error.status !== 404) return { ok: false, outcome: apiFailure(r.error, `Reading the ${k.what}`) };
  }
  // Only the name carries the UID, so finding the record without an id means looking through all of them.
  const all = await k.list(api);
  if (!all.ok) return { ok: false, outcome: apiFailure(all.error, `Listing the ${k.whats}`) };
  return { ok: true, remote: all.body.find((p) => uidOfRemoteName(p.name) === uid) };
}

/** Deletes the object's remote proxy, wherever findRemoteProxy finds it; undefined when it is gone. */
export async function deleteRemoteProxy<R extends { id: string; name: string }>(
  api: ApiClient, k: Lookup<R> & Pick<ProxyRoutes<R, never, never>, 'remove'>, statusId: unknown, uid: string,
): Promise<Outcome | undefined> {
  const found = await findRemoteProxy(api, k, statusId, uid);
  if (!found.ok) return found.outcome;
  return found.remote ? deleted(await k.remove(api, found.remote.id), k.what) : undefined;
}

export type Synced<R> =
  | { ok: true; remote: R; created: boolean; changed: string[]; event?: Outcome['event'] }
  | { ok: false; outcome: Outcome };

export async function syncProxy<R extends { id: string; name: string }, Create, Patch extends object>(
  api: ApiClient,
  k: ProxyRoutes<R, Create, Patch>,
  target: { statusId: unknown; uid: string; create: Create; patchOf(remote: R): Patch },
): Promise<Synced<R>> {
  const found = await findRemoteProxy(api, k, target.statusId, target.uid);
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
  const names = changed.map((f) => (f === k.secretField ? k.secretLabel : f));
  return { ok: true, remote: r.body, created: false, changed, event: { type: 'Normal', reason: 'Updated', message: `Updated ${names.join(', ')}` } };
}
