// Who owns an ApiKey's remote key, beyond creating and rotating it (api-key.ts): taking over an existing key by id
// (spec.adoptId), giving it up on deletion (deletionPolicy Orphan), and deleting it where it was made when the
// connection it was made through may no longer be used (a shared proxy's grant revoked, the proxy gone).
import { parseKeyTags, type ApiClient } from '@tollgate/contract';
import { isOperatorTag, uidTag } from '../kinds/identity.ts';
import type { ApiKeySpec } from '../kinds/specs.ts';
import type { KubeObject } from '../kube/objects.ts';
import { connectionKey, parseConnectionKey } from './connection.ts';
import type { Route } from './key-routing.ts';
import { clearKeySecret, keysOf, releaseKeySecret, secretNameOf, type KeyRecord } from './key-secret.ts';
import { waiting, type Outcome } from './outcome.ts';
import { apiFailure, deleted } from './remote.ts';
import type { ConnectionRef, ReconcileContext } from './types.ts';

type Step<T> = { ok: true; value: T } | { ok: false; outcome: Outcome };

/** The ApiKey a remote key is marked as belonging to (its k8s: tags), other than `obj`; undefined when unmarked. */
export function otherOwner(tags: readonly string[], obj: KubeObject): string | undefined {
  if (!tags.some((t) => t.startsWith('k8s:uid:')) || tags.includes(uidTag(obj.metadata.uid))) return undefined;
  const object = tags.find((t) => t.startsWith('k8s:object:'))?.slice('k8s:object:'.length);
  const uid = tags.find((t) => t.startsWith('k8s:uid:'))?.slice('k8s:uid:'.length);
  return `ApiKey ${object ?? '(unknown)'} (uid ${uid})`;
}

/**
 * spec.adoptId: the existing key joins the object's keys (the next PATCH gives it the object's tags). Only while the
 * object has had no key of its own (no status.id at all): after a rotation the adopted key is gone on purpose. And
 * only through the ApiKey's own namespace's connection: a grant lets another namespace use a shared proxy, not take
 * over (and rotate away) any key of the proxy owner's user.
 */
export async function adoptKey(ctx: ReconcileContext, obj: KubeObject<ApiKeySpec>, mine: KeyRecord[], via: ConnectionRef): Promise<Step<KeyRecord[]>> {
  const id = obj.spec.adoptId;
  if (!id || typeof obj.status?.id === 'string' || mine.some((k) => k.id === id)) return { ok: true, value: mine };
  if (via.namespace !== obj.metadata.namespace) {
    const message = `client key ${id} (spec.adoptId) would be taken over through connection Secret ${connectionKey(via)} of another namespace; adopt keys only through this namespace's own connection`;
    return { ok: false, outcome: waiting('AdoptionRefused', message, {}, 60_000) };
  }
  const r = await ctx.api.call('GET /api/keys/:id', { params: { id } });
  if (!r.ok && r.error.status === 404) {
    return { ok: false, outcome: waiting('AdoptionTargetMissing', `client key ${id} (spec.adoptId) does not exist for the user of this key's connection`, {}, 60_000) };
  }
  if (!r.ok) return { ok: false, outcome: apiFailure(r.error, 'Reading the client key to adopt') };
  const owner = otherOwner(r.body.tags, obj);
  if (owner) {
    return { ok: false, outcome: waiting('AdoptionRefused', `client key ${id} (spec.adoptId) is owned by ${owner}; delete that object with deletionPolicy Orphan first`, {}, 60_000) };
  }
  return { ok: true, value: [...mine, r.body] };
}

/** deletionPolicy Orphan: the keys stay, without the operator's tags (so they can be adopted again), and so does the Secret. */
export async function orphanKeys(ctx: ReconcileContext, obj: KubeObject<ApiKeySpec>): Promise<Outcome | undefined> {
  const mine = await keysOf(ctx.api, obj);
  if (!mine.ok) return mine.outcome;
  for (const k of mine.keys) {
    const { mcpPermissions, llmPermissions, customTags } = parseKeyTags(k.tags);
    const body = {
      mcpPermissions: mcpPermissions.map((g) => ({ id: g.id, tools: [...g.tools], resources: [...g.resources] })),
      llmPermissions: llmPermissions.map((g) => ({ id: g.id, models: [...g.models] })),
      customTags: customTags.filter((t) => !isOperatorTag(t)),
    };
    const r = await ctx.api.call('PATCH /api/keys/:id', { params: { id: k.id }, body });
    if (!r.ok && r.error.status !== 404) return apiFailure(r.error, 'Removing the operator\'s tags from the client key');
  }
  return releaseKeySecret(ctx.kube, obj);
}

async function deleteAll(api: ApiClient, keys: readonly KeyRecord[]): Promise<Outcome | undefined> {
  for (const k of keys) {
    const gone = deleted(await api.call('DELETE /api/keys/:id', { params: { id: k.id } }), 'client key');
    if (gone) return gone;
  }
  return undefined;
}

/** Status fields of an ApiKey without a remote key. */
const NO_KEY = { id: '', maskedKey: '', secretName: '', connection: '', budgetProxyIds: [] };

/**
 * The key was made through a connection (status.connection) it may no longer use: the grant of a shared proxy was
 * revoked, the proxy is gone, or its proxies are now reached through another connection. ctx.api is that recorded
 * connection (connectionOf in api-key.ts); the keys are deleted there and the Secret emptied, and the status says why.
 * Undefined when the key may stay where it is.
 */
export async function leaveConnection(ctx: ReconcileContext, obj: KubeObject<ApiKeySpec>, route: Route): Promise<Outcome | undefined> {
  const recorded = parseConnectionKey(obj.status?.connection);
  if (!recorded) return undefined;
  if (route.ok ? connectionKey(route.via) === connectionKey(recorded) : !route.revoked) return undefined;
  const mine = await keysOf(ctx.api, obj);
  if (!mine.ok) return mine.outcome;
  const failure = (await deleteAll(ctx.api, mine.keys)) ?? (await clearKeySecret(ctx.kube, obj));
  if (failure) return failure;
  const ids = mine.keys.map((k) => k.id).join(', ') || 'none was left';
  const done = `the client key made through connection Secret ${connectionKey(recorded)} (${ids}) was deleted and Secret ${secretNameOf(obj)} emptied`;
  if (route.ok) {
    return waiting('ConnectionChanged', `The proxies are now reached through connection Secret ${connectionKey(route.via)}: ${done}; a new key follows`, NO_KEY, 500);
  }
  const o = route.outcome;
  const message = `${o.synced.message}; ${done}`;
  return {
    ...o, fields: NO_KEY,
    synced: { ...o.synced, message }, ready: { ...o.ready, message },
    event: { type: 'Warning', reason: o.synced.reason, message },
  };
}

/**
 * A refusal of an ApiKey whose key was deleted for the same reason earlier (status.id emptied by leaveConnection):
 * the status keeps saying that the key was deleted, and why, while the cause lasts.
 */
export function keepRevokedMessage(obj: KubeObject, refused: Outcome): Outcome {
  const prev = obj.status?.conditions?.find((c) => c.type === 'Ready');
  if (obj.status?.id !== '' || prev?.reason !== refused.ready.reason || !prev.message.startsWith(refused.ready.message)) return refused;
  const message = prev.message;
  return { ...refused, synced: { ...refused.synced, message }, ready: { ...refused.ready, message }, event: refused.event && { ...refused.event, message } };
}
