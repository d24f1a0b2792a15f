// ApiKey → a client key of the management API, whose plaintext lives in a Secret the ApiKey owns (key `key`).
//
// The plaintext exists once, in the create answer, so the Secret records which remote key it holds (annotation
// tollgate.dev/key-id). Every remote key carrying this object's UID tag that is not that one is a leftover of an
// interrupted create or rotation and is deleted; a key whose plaintext was lost is replaced. Rotation (a new value
// of the tollgate.dev/rotate annotation) is: create the new key, swap the Secret, delete the old key.
import { buildKeyTags, nameTag, type ApiClient, type BodyOf, type ResponseOf } from '@tollgate/contract';
import { ROTATE_ANNOTATION, apiKeySpecSchema, type ApiKeySpec } from '../kinds/specs.ts';
import { objectTag, remoteKeyName, uidTag } from '../kinds/identity.ts';
import type { KubeClient } from '../kube/client.ts';
import { ownerReference, paths, type KubeObject, type SecretObject } from '../kube/objects.ts';
import { sameSet, sameValue } from './compare.ts';
import { failed, ok, waiting, type Outcome } from './outcome.ts';
import { apiFailure, deleted } from './remote.ts';
import type { ReconcileContext, Reconciler } from './types.ts';

type KeyRecord = ResponseOf<'GET /api/keys/:id'>;

export const KEY_ID_ANNOTATION = 'tollgate.dev/key-id';
/** The tollgate.dev/rotate value the Secret's key was minted for. Kept on the Secret, which is read from the API
 * server on every reconcile, because the ApiKey comes from the informer's cache: a reconcile that runs before the
 * watch delivers the status written by a rotation would otherwise see the rotation as still to do, and rotate twice. */
export const ROTATED_FOR_ANNOTATION = 'tollgate.dev/rotated-for';
export const SECRET_KEY = 'key';

interface Grants {
  mcpPermissions: Array<{ id: string; tools: string[]; resources: string[] }>;
  llmPermissions: Array<{ id: string; models: string[] }>;
  customTags: string[];
  budgets: Array<{ proxyId: string } & Pick<ApiKeySpec['llmBudgets'][number], 'period' | 'capUsd' | 'hardBlock'>>;
}

type Resolved = { ok: true; value: Grants } | { ok: false; outcome: Outcome };

function proxyId(ctx: ReconcileContext, kind: 'McpProxy' | 'LlmProxy', ns: string, name: string): { ok: true; id: string; obj: KubeObject } | { ok: false; outcome: Outcome } {
  const p = ctx.objects.get(kind, ns, name);
  if (!p || p.metadata.deletionTimestamp) return { ok: false, outcome: waiting('ProxyMissing', `${kind} ${name} does not exist`, {}, 10_000) };
  const id = p.status?.id;
  if (typeof id !== 'string' || !id) return { ok: false, outcome: waiting('ProxyNotReady', `${kind} ${name} has no remote id yet`) };
  return { ok: true, id, obj: p };
}

type McpGrant = Grants['mcpPermissions'][number];
type Step<T> = { ok: true; value: T } | { ok: false; outcome: Outcome };

/** Resource URIs of one grant as the API's resource ids; `*` or an empty list is passed through unchanged. */
async function resourceIds(ctx: ReconcileContext, proxy: { id: string; name: string }, resources: string[]): Promise<Step<string[]>> {
  if (resources.includes('*') || !resources.length) return { ok: true, value: resources };
  const r = await ctx.api.call('GET /api/mcp/:id/resources', { params: { id: proxy.id } });
  if (!r.ok) return { ok: false, outcome: apiFailure(r.error, 'Listing the resources of the MCP server') };
  const byUri = new Map(r.body.resources.map((x) => [x.uri, x.id]));
  const missing = resources.filter((u) => !byUri.has(u));
  if (missing.length) return { ok: false, outcome: waiting('ResourceMissing', `McpProxy ${proxy.name} serves no resource ${missing.join(', ')}`, {}, 15_000) };
  return { ok: true, value: resources.map((u) => byUri.get(u)!) };
}

/** One MCP grant: the proxy must exist with an id, and every named tool must be in its discovered catalog. */
async function resolveMcpGrant(ctx: ReconcileContext, ns: string, p: ApiKeySpec['mcpPermissions'][number]): Promise<Step<McpGrant>> {
  const proxy = proxyId(ctx, 'McpProxy', ns, p.proxyRef.name);
  if (!proxy.ok) return proxy;
  const catalog = new Set((proxy.obj.status?.tools as string[] | undefined) ?? []);
  const unknown = p.tools.filter((t) => t !== '*' && !catalog.has(t));
  if (unknown.length) {
    return { ok: false, outcome: waiting('ToolNotDiscovered', `McpProxy ${p.proxyRef.name} has no tool ${unknown.join(', ')} in its discovered catalog`, {}, 15_000) };
  }
  const resources = await resourceIds(ctx, { id: proxy.id, name: p.proxyRef.name }, p.resources);
  if (!resources.ok) return resources;
  return { ok: true, value: { id: proxy.id, tools: p.tools, resources: resources.value } };
}

/** The spec's references to proxies (by object name, tools, resource URIs) as the API's ids. */
async function resolveGrants(ctx: ReconcileContext, obj: KubeObject<ApiKeySpec>): Promise<Resolved> {
  const ns = obj.metadata.namespace!;
  const spec = obj.spec;
  const out: Grants = { mcpPermissions: [], llmPermissions: [], customTags: [], budgets: [] };
  for (const p of spec.mcpPermissions) {
    const grant = await resolveMcpGrant(ctx, ns, p);
    if (!grant.ok) return grant;
    out.mcpPermissions.push(grant.value);
  }
  for (const p of spec.llmPermissions) {
    const proxy = proxyId(ctx, 'LlmProxy', ns, p.proxyRef.name);
    if (!proxy.ok) return proxy;
    out.llmPermissions.push({ id: proxy.id, models: p.models });
  }
  for (const b of spec.llmBudgets) {
    const proxy = proxyId(ctx, 'LlmProxy', ns, b.proxyRef.name);
    if (!proxy.ok) return proxy;
    out.budgets.push({ proxyId: proxy.id, period: b.period, capUsd: b.capUsd, hardBlock: b.hardBlock });
  }
  out.customTags = [...spec.customTags, uidTag(obj.metadata.uid), objectTag(ns, obj.metadata.name)];
  return { ok: true, value: out };
}

const secretNameOf = (obj: KubeObject<ApiKeySpec>) => obj.spec.secretName ?? obj.metadata.name;

async function readKeySecret(kube: KubeClient, obj: KubeObject<ApiKeySpec>): Promise<{ ok: true; secret: SecretObject | undefined } | { ok: false; outcome: Outcome }> {
  const r = await kube.get<SecretObject>(paths.secret(obj.metadata.namespace!, secretNameOf(obj)));
  if (!r.ok && r.status === 404) return { ok: true, secret: undefined };
  if (!r.ok) return { ok: false, outcome: failed('SecretUnreadable', `reading Secret ${secretNameOf(obj)} failed: ${r.message}`) };
  const owned = r.body.metadata.ownerReferences?.some((o) => o.uid === obj.metadata.uid);
  if (!owned) return { ok: false, outcome: waiting('SecretNameTaken', `Secret ${secretNameOf(obj)} exists and is not owned by this ApiKey; choose another spec.secretName`, {}, 60_000) };
  return { ok: true, secret: r.body };
}

/** Creates or replaces the key's Secret (owned by the ApiKey, so it is garbage-collected with it). */
async function writeKeySecret(kube: KubeClient, obj: KubeObject<ApiKeySpec>, existing: SecretObject | undefined, key: { id: string; plaintext: string; rotation: string | undefined }): Promise<Outcome | undefined> {
  const { id, plaintext, rotation } = key;
  const annotations: Record<string, string> = { ...existing?.metadata.annotations, [KEY_ID_ANNOTATION]: id };
  if (rotation === undefined) delete annotations[ROTATED_FOR_ANNOTATION];
  else annotations[ROTATED_FOR_ANNOTATION] = rotation;
  const ns = obj.metadata.namespace!;
  const name = secretNameOf(obj);
  const secret: SecretObject = {
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
    metadata: {
      name, namespace: ns,
      ...(existing ? { resourceVersion: existing.metadata.resourceVersion } : {}),
      labels: { ...existing?.metadata.labels, 'app.kubernetes.io/managed-by': 'tollgate-operator' },
      annotations,
      ownerReferences: [ownerReference(obj as KubeObject)],
    },
    data: { [SECRET_KEY]: Buffer.from(plaintext).toString('base64') },
  };
  const r = existing ? await kube.replace(paths.secret(ns, name), secret) : await kube.create(paths.secrets(ns), secret);
  return r.ok ? undefined : failed('SecretWriteFailed', `writing Secret ${name} failed: ${r.message}`);
}

/** The masked form of a key, as the API lists it (the create answer has only the plaintext). */
async function maskedKeyOf(api: ApiClient, id: string): Promise<string | undefined> {
  const r = await api.call('GET /api/keys/:id', { params: { id } });
  return r.ok ? r.body.key : undefined;
}

async function syncBudgets(api: ApiClient, keyId: string, want: Grants['budgets'], previous: readonly string[]): Promise<Outcome | undefined> {
  for (const b of want) {
    const params = { id: b.proxyId, credId: keyId };
    const current = await api.call('GET /api/llm/:id/keys/:credId/budget', { params });
    // 404: the key has no access to the proxy (yet), so no cap either; the PUT below answers why it cannot have one.
    if (!current.ok && current.error.status !== 404) return apiFailure(current.error, 'Reading the per-key budget');
    const have = current.ok ? current.body.budget : null;
    const body: BodyOf<'PUT /api/llm/:id/keys/:credId/budget'> = { period: b.period, capUsd: b.capUsd, hardBlock: b.hardBlock };
    if (sameValue(have, body)) continue;
    const r = await api.call('PUT /api/llm/:id/keys/:credId/budget', { params, body });
    if (!r.ok) return apiFailure(r.error, 'Setting the per-key budget');
  }
  for (const proxyId of previous.filter((p) => !want.some((b) => b.proxyId === p))) {
    const gone = deleted(await api.call('DELETE /api/llm/:id/keys/:credId/budget', { params: { id: proxyId, credId: keyId } }), 'per-key budget');
    if (gone) return gone;
  }
  return undefined;
}

/** What to do with the remote keys of an ApiKey: decided from the keys carrying its UID and the Secret's key id. */
export type KeyPlan =
  | { action: 'mint'; why: 'create' | 'reissue' | 'rotate'; replaces?: KeyRecord; leftovers: KeyRecord[] }
  | { action: 'keep'; current: KeyRecord; leftovers: KeyRecord[] };

export function planKey(mine: readonly KeyRecord[], heldId: string | undefined, rotation: string | undefined, rotatedFor: unknown): KeyPlan {
  const current = mine.find((k) => k.id === heldId);
  // Every key but the one whose plaintext the Secret holds is a leftover (of a crash, or the old key of a rotation).
  const leftovers = mine.filter((k) => k !== current);
  if (!current) return { action: 'mint', why: mine.length ? 'reissue' : 'create', leftovers };
  if (rotation !== undefined && rotation !== rotatedFor) return { action: 'mint', why: 'rotate', replaces: current, leftovers: mine.slice() };
  return { action: 'keep', current, leftovers };
}

const MINT_EVENT: Record<'create' | 'reissue' | 'rotate', (id: string, secret: string, old?: string) => Outcome['event']> = {
  create: (id) => ({ type: 'Normal', reason: 'Created', message: `Created client key ${id}` }),
  reissue: (id, secret) => ({ type: 'Normal', reason: 'Reissued', message: `The plaintext of the previous key was not in Secret ${secret}; issued ${id}` }),
  rotate: (id, _secret, old) => ({ type: 'Normal', reason: 'Rotated', message: `Rotated the client key: ${id} replaces ${old}` }),
};

/** Creates a key and stores its plaintext in the Secret; the key is deleted again if the Secret cannot be written. */
async function mint(ctx: ReconcileContext, obj: KubeObject<ApiKeySpec>, secret: SecretObject | undefined, req: { body: BodyOf<'POST /api/keys'>; rotation: string | undefined }): Promise<{ ok: true; id: string } | { ok: false; outcome: Outcome }> {
  const created = await ctx.api.call('POST /api/keys', { body: req.body });
  if (!created.ok) return { ok: false, outcome: apiFailure(created.error, 'Creating the client key') };
  const { id, key } = created.body.key;
  const written = await writeKeySecret(ctx.kube, obj, secret, { id, plaintext: key, rotation: req.rotation });
  if (!written) return { ok: true, id };
  // Best effort: a key left behind carries the UID tag, so the next reconcile deletes it as a leftover.
  await ctx.api.call('DELETE /api/keys/:id', { params: { id } });
  return { ok: false, outcome: written };
}

/** What reconcile knows once the grants are resolved and the Secret is read; shared by the plan's steps. */
interface KeyWork {
  obj: KubeObject<ApiKeySpec>;
  grants: Grants;
  keyName: string;
  body: { mcpPermissions: Grants['mcpPermissions']; llmPermissions: Grants['llmPermissions']; customTags: string[] };
  secret: SecretObject | undefined;
  rotation: string | undefined;
}

type Applied = { ok: true; id: string; masked: string; event: Outcome['event'] } | { ok: false; outcome: Outcome };

/** Mints a new key (create, reissue or rotate) or brings the kept key's permissions up to date. */
async function applyPlan(ctx: ReconcileContext, plan: KeyPlan, w: KeyWork): Promise<Applied> {
  if (plan.action === 'mint') {
    const m = await mint(ctx, w.obj, w.secret, { body: { name: w.keyName, ...w.body }, rotation: w.rotation });
    if (!m.ok) return m;
    return { ok: true, id: m.id, masked: '', event: MINT_EVENT[plan.why](m.id, secretNameOf(w.obj), plan.replaces?.id) };
  }
  const id = plan.current.id;
  const g = w.grants;
  if (sameSet(plan.current.tags, buildKeyTags(nameTag(w.keyName), g.mcpPermissions, g.llmPermissions, g.customTags))) {
    return { ok: true, id, masked: plan.current.key, event: undefined };
  }
  const r = await ctx.api.call('PATCH /api/keys/:id', { params: { id }, body: w.body });
  if (!r.ok) return { ok: false, outcome: apiFailure(r.error, 'Updating the client key') };
  return { ok: true, id, masked: r.body.key.key, event: { type: 'Normal', reason: 'Updated', message: 'Updated the permissions of the client key' } };
}

async function deleteLeftovers(api: ApiClient, leftovers: readonly KeyRecord[]): Promise<Outcome | undefined> {
  for (const k of leftovers) {
    const gone = deleted(await api.call('DELETE /api/keys/:id', { params: { id: k.id } }), 'previous client key');
    if (gone) return gone;
  }
  return undefined;
}

/**
 * The remote keys of an ApiKey: every key carrying its UID tag. This lists all the user's keys, not only the one the
 * Secret names: a create or rotation interrupted before its Secret write leaves keys that nothing else refers to, and
 * the tag is the only way to find them (and delete them, here and on cleanup).
 */
async function keysOf(api: ApiClient, obj: KubeObject<ApiKeySpec>): Promise<{ ok: true; keys: KeyRecord[] } | { ok: false; outcome: Outcome }> {
  const listed = await api.call('GET /api/keys');
  if (!listed.ok) return { ok: false, outcome: apiFailure(listed.error, 'Listing the client keys') };
  return { ok: true, keys: listed.body.keys.filter((k) => k.tags.includes(uidTag(obj.metadata.uid))) };
}

/** Reads the Secret and plans which remote key it should hold; the remote keys are those carrying the UID tag. */
async function readAndPlan(ctx: ReconcileContext, obj: KubeObject<ApiKeySpec>, mine: readonly KeyRecord[]): Promise<{ ok: true; plan: KeyPlan; secret: SecretObject | undefined } | { ok: false; outcome: Outcome }> {
  const s = await readKeySecret(ctx.kube, obj);
  if (!s.ok) return s;
  const heldId = s.secret?.data?.[SECRET_KEY] ? s.secret.metadata.annotations?.[KEY_ID_ANNOTATION] : undefined;
  const rotation = obj.metadata.annotations?.[ROTATE_ANNOTATION];
  const rotatedFor = s.secret?.metadata.annotations?.[ROTATED_FOR_ANNOTATION] ?? (obj.status ?? {}).rotation;
  return { ok: true, plan: planKey(mine, heldId, rotation, rotatedFor), secret: s.secret };
}

/** The key is in place: the per-key budgets follow the spec, then the status reports the key (masked). */
async function finish(ctx: ReconcileContext, w: Pick<KeyWork, 'obj' | 'grants' | 'rotation'>, applied: Extract<Applied, { ok: true }>): Promise<Outcome> {
  const { obj, grants: g, rotation } = w;
  const { id, event } = applied;
  const status = obj.status ?? {};
  const previousBudgets = Array.isArray(status.budgetProxyIds) ? (status.budgetProxyIds as string[]) : [];
  const fields: Record<string, unknown> = {
    id, secretName: secretNameOf(obj), budgetProxyIds: g.budgets.map((b) => b.proxyId), ...(rotation !== undefined ? { rotation } : {}),
  };
  const budgets = await syncBudgets(ctx.api, id, g.budgets, previousBudgets);
  if (budgets) return { ...budgets, fields: { ...fields, budgetProxyIds: previousBudgets } };
  const masked = applied.masked || ((await maskedKeyOf(ctx.api, id)) ?? String(status.maskedKey ?? ''));
  return ok({ ...fields, maskedKey: masked }, 'The client key matches the spec', event);
}

export const apiKeyReconciler: Reconciler<typeof apiKeySpecSchema> = {
  kind: 'ApiKey',
  spec: apiKeySpecSchema,

  async reconcile(ctx, obj) {
    const grants = await resolveGrants(ctx, obj);
    if (!grants.ok) return grants.outcome;
    const g = grants.value;
    const keyName = remoteKeyName(obj.metadata.namespace!, obj.metadata.name);
    const body = { mcpPermissions: g.mcpPermissions, llmPermissions: g.llmPermissions, customTags: g.customTags };

    const mine = await keysOf(ctx.api, obj);
    if (!mine.ok) return mine.outcome;
    const planned = await readAndPlan(ctx, obj, mine.keys);
    if (!planned.ok) return planned.outcome;
    const rotation = obj.metadata.annotations?.[ROTATE_ANNOTATION];
    const applied = await applyPlan(ctx, planned.plan, { obj, grants: g, keyName, body, secret: planned.secret, rotation });
    if (!applied.ok) return applied.outcome;
    const gone = await deleteLeftovers(ctx.api, planned.plan.leftovers);
    if (gone) return gone;
    return finish(ctx, { obj, grants: g, rotation }, applied);
  },

  async cleanup(ctx, obj) {
    const mine = await keysOf(ctx.api, obj);
    if (!mine.ok) return mine.outcome;
    for (const k of mine.keys) {
      const gone = deleted(await ctx.api.call('DELETE /api/keys/:id', { params: { id: k.id } }), 'client key');
      if (gone) return gone;
    }
    return undefined; // the Secret is owned by the ApiKey: the garbage collector deletes it
  },
};
