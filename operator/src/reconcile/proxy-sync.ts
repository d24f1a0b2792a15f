// The part of reconciling a proxy that both kinds share: find (or adopt) the remote record, create it when there is
// none, else PATCH only the fields that differ and read it back. What differs is decided by pure functions of each
// kind (mcpPatch, llmPatch), tested without a server.
import type { ApiClient } from '@tollgate/contract';
import type { Outcome } from './outcome.ts';
import { apiFailure, findRemoteProxy } from './remote.ts';

export interface ProxyEndpoint<R> {
  /** `/api/mcp` or `/api/llm`. */
  collection: string;
  /** The array of the collection's GET answer. */
  listField: string;
  what: string;
  whats: string;
  /** The record in a create answer. */
  created(body: unknown): R;
  /** The write-only field and how to name it in an Event. */
  secretField: string;
  secretLabel: string;
}

export type Synced<R> =
  | { ok: true; remote: R; created: boolean; changed: string[]; event?: Outcome['event'] }
  | { ok: false; outcome: Outcome };

export async function syncProxy<R extends { id: string; name: string }>(
  api: ApiClient,
  k: ProxyEndpoint<R>,
  target: { statusId: unknown; uid: string; create: Record<string, unknown>; patchOf(remote: R): Record<string, unknown> },
): Promise<Synced<R>> {
  const found = await findRemoteProxy<R>(api, k, target.statusId, target.uid);
  if (!found.ok) return found;
  if (!found.remote) {
    const r = await api.post(k.collection, target.create);
    if (!r.ok) return { ok: false, outcome: apiFailure(r.error, `Creating the ${k.what}`) };
    const remote = k.created(r.body);
    return { ok: true, remote, created: true, changed: [], event: { type: 'Normal', reason: 'Created', message: `Created ${k.what} ${remote.id}` } };
  }
  const patch = target.patchOf(found.remote);
  const changed = Object.keys(patch);
  if (!changed.length) return { ok: true, remote: found.remote, created: false, changed };
  const path = `${k.collection}/${encodeURIComponent(found.remote.id)}`;
  const r = await api.patch(path, patch);
  if (!r.ok) return { ok: false, outcome: apiFailure(r.error, `Updating the ${k.what}`) };
  const again = await api.get<R>(path);
  if (!again.ok) return { ok: false, outcome: apiFailure(again.error, `Reading the ${k.what}`) };
  const names = changed.map((f) => (f === k.secretField ? k.secretLabel : f));
  return { ok: true, remote: again.body, created: false, changed, event: { type: 'Normal', reason: 'Updated', message: `Updated ${names.join(', ')}` } };
}
