// ApiKey → a client key of the management API, whose plaintext lives in a Secret the ApiKey owns (key `key`).
//
// The plaintext exists once, in the create answer, so the Secret records which remote key it holds (annotation
// tollgate.dev/key-id). Every remote key carrying this object's UID tag that is not that one is a leftover of an
// interrupted create or rotation and is deleted; a key whose plaintext was lost is replaced. Rotation (a new value
// of the tollgate.dev/rotate annotation) is: create the new key, swap the Secret, delete the old key.
//
// Proxies may be shared from other namespaces (key-routing.ts): the key is then made through the proxies' connection,
// recorded in status.connection, and deleted there again when the grant goes (key-ownership.ts).
import { buildKeyTags, findNameTag, nameTag, type ApiClient, type BodyOf } from '@tollgate/contract';
import { ROTATE_ANNOTATION, apiKeySpecSchema, type ApiKeySpec } from '../kinds/specs.ts';
import { objectTag, remoteKeyName, uidTag } from '../kinds/identity.ts';
import type { KubeObject, SecretObject } from '../kube/objects.ts';
import { sameSet, sameValue } from './compare.ts';
import { connectionKey, parseConnectionKey } from './connection.ts';
import { adoptKey, keepRevokedMessage, leaveConnection, orphanKeys } from './key-ownership.ts';
import { routeKey } from './key-routing.ts';
import {
  KEY_ID_ANNOTATION, ROTATED_FOR_ANNOTATION, SECRET_KEY, keysOf, readKeySecret, secretNameOf, writeKeySecret, type KeyRecord,
} from './key-secret.ts';
import { ok, waiting, type Outcome } from './outcome.ts';
import { apiFailure, deleted } from './remote.ts';
import type { ReconcileContext, Reconciler } from './types.ts';

interface Grants {
  mcpPermissions: Array<{ id: string; tools: string[]; resources: string[] }>;
  llmPermissions: Array<{ id: string; models: string[] }>;
  customTags: string[];
  budgets: Array<{ proxyId: string } & Pick<ApiKeySpec['llmBudgets'][number], 'period' | 'capUsd' | 'hardBlock'>>;
}

type Resolved = { ok: true; value: Grants } | { ok: false; outcome: Outcome };

/** A proxyRef of the spec: in the key's namespace unless it names another one (granted: key-routing.ts checked). */
type Ref = { name: string; namespace?: string };
const refLabel = (ns: string, ref: Ref) => (ref.namespace && ref.namespace !== ns ? `${ref.namespace}/${ref.name}` : ref.name);

function proxyId(ctx: ReconcileContext, kind: 'McpProxy' | 'LlmProxy', ns: string, ref: Ref): { ok: true; id: string; obj: KubeObject } | { ok: false; outcome: Outcome } {
  const p = ctx.objects.get(kind, ref.namespace ?? ns, ref.name);
  const name = refLabel(ns, ref);
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
  const proxy = proxyId(ctx, 'McpProxy', ns, p.proxyRef);
  if (!proxy.ok) return proxy;
  const name = refLabel(ns, p.proxyRef);
  const catalog = new Set((proxy.obj.status?.tools as string[] | undefined) ?? []);
  const unknown = p.tools.filter((t) => t !== '*' && !catalog.has(t));
  if (unknown.length) {
    return { ok: false, outcome: waiting('ToolNotDiscovered', `McpProxy ${name} has no tool ${unknown.join(', ')} in its discovered catalog`, {}, 15_000) };
  }
  const resources = await resourceIds(ctx, { id: proxy.id, name }, p.resources);
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
    const proxy = proxyId(ctx, 'LlmProxy', ns, p.proxyRef);
    if (!proxy.ok) return proxy;
    out.llmPermissions.push({ id: proxy.id, models: p.models });
  }
  for (const b of spec.llmBudgets) {
    const proxy = proxyId(ctx, 'LlmProxy', ns, b.proxyRef);
    if (!proxy.ok) return proxy;
    out.budgets.push({ proxyId: proxy.id, period: b.period, capUsd: b.capUsd, hardBlock: b.hardBlock });
  }
  out.customTags = [...spec.customTags, uidTag(obj.metadata.uid), objectTag(ns, obj.metadata.name)];
  return { ok: true, value: out };
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
  // An adopted key keeps the name it was made with (names are fixed).
  const name = findNameTag(plan.current.tags) ?? nameTag(w.keyName);
  if (sameSet(plan.current.tags, buildKeyTags(name, g.mcpPermissions, g.llmPermissions, g.customTags))) {
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

/** The id of the key whose plaintext the Secret holds. */
const heldKeyId = (secret: SecretObject | undefined) => (secret?.data?.[SECRET_KEY] ? secret.metadata.annotations?.[KEY_ID_ANNOTATION] : undefined);

type Planned = { ok: true; plan: KeyPlan; secret: SecretObject | undefined; inSecret: string | undefined } | { ok: false; outcome: Outcome };

/**
 * Reads the Secret and plans which remote key it should hold; the remote keys are those carrying the UID tag. An
 * adopted key whose plaintext the Secret does not hold (nobody but its creator has it) is kept, not reissued: it is
 * serving, and a rotation is how the Secret gets a key.
 */
async function readAndPlan(ctx: ReconcileContext, obj: KubeObject<ApiKeySpec>, mine: readonly KeyRecord[]): Promise<Planned> {
  const s = await readKeySecret(ctx.kube, obj);
  if (!s.ok) return s;
  const inSecret = heldKeyId(s.secret);
  const adopted = mine.some((k) => k.id === obj.spec.adoptId) ? obj.spec.adoptId : undefined;
  const rotation = obj.metadata.annotations?.[ROTATE_ANNOTATION];
  const rotatedFor = s.secret?.metadata.annotations?.[ROTATED_FOR_ANNOTATION] ?? (obj.status ?? {}).rotation;
  return { ok: true, plan: planKey(mine, inSecret ?? adopted, rotation, rotatedFor), secret: s.secret, inSecret };
}

/** What finish reports besides the key: the connection it was made through, and whether the Secret holds its plaintext. */
interface Placed { connection: string; inSecret: boolean }

/** The key is in place: the per-key budgets follow the spec, then the status reports the key (masked). */
async function finish(ctx: ReconcileContext, w: Pick<KeyWork, 'obj' | 'grants' | 'rotation'>, applied: Extract<Applied, { ok: true }>, placed: Placed): Promise<Outcome> {
  const { obj, grants: g, rotation } = w;
  const { id, event } = applied;
  const status = obj.status ?? {};
  const previousBudgets = Array.isArray(status.budgetProxyIds) ? (status.budgetProxyIds as string[]) : [];
  const fields: Record<string, unknown> = {
    id, secretName: placed.inSecret ? secretNameOf(obj) : '', connection: placed.connection,
    budgetProxyIds: g.budgets.map((b) => b.proxyId), ...(rotation !== undefined ? { rotation } : {}),
  };
  const budgets = await syncBudgets(ctx.api, id, g.budgets, previousBudgets);
  if (budgets) return { ...budgets, fields: { ...fields, budgetProxyIds: previousBudgets } };
  const masked = applied.masked || ((await maskedKeyOf(ctx.api, id)) ?? String(status.maskedKey ?? ''));
  if (placed.inSecret) return ok({ ...fields, maskedKey: masked }, 'The client key matches the spec', event);
  const message = `The adopted client key ${id} matches the spec; its plaintext is only with whoever created it, so no Secret is written until a rotation (annotate ${ROTATE_ANNOTATION})`;
  const o = ok({ ...fields, maskedKey: masked }, message, obj.status?.id ? event : { type: 'Normal', reason: 'Adopted', message: `Adopted client key ${id}` });
  return { ...o, ready: { ...o.ready, message } };
}

/** The connection the remote key lives behind: the one recorded when it was made, else where its proxies are reached. */
function connectionOf(obj: KubeObject<ApiKeySpec>, objects: ReconcileContext['objects']) {
  const recorded = parseConnectionKey(obj.status?.connection);
  if (recorded) return recorded;
  const route = routeKey(obj, objects);
  return route.ok ? route.via : { refused: route.revoked ? keepRevokedMessage(obj, route.outcome) : route.outcome };
}

export const apiKeyReconciler: Reconciler<typeof apiKeySpecSchema> = {
  kind: 'ApiKey',
  spec: apiKeySpecSchema,

  connectionOf,

  async reconcile(ctx, obj) {
    const route = routeKey(obj, ctx.objects);
    const left = await leaveConnection(ctx, obj, route);
    if (left) return left;
    if (!route.ok) return route.outcome;
    const grants = await resolveGrants(ctx, obj);
    if (!grants.ok) return grants.outcome;
    const g = grants.value;
    const keyName = remoteKeyName(obj.metadata.namespace!, obj.metadata.name);
    const body = { mcpPermissions: g.mcpPermissions, llmPermissions: g.llmPermissions, customTags: g.customTags };

    const listed = await keysOf(ctx.api, obj);
    if (!listed.ok) return listed.outcome;
    const mine = await adoptKey(ctx, obj, listed.keys, route.via);
    if (!mine.ok) return mine.outcome;
    const planned = await readAndPlan(ctx, obj, mine.value);
    if (!planned.ok) return planned.outcome;
    const rotation = obj.metadata.annotations?.[ROTATE_ANNOTATION];
    const applied = await applyPlan(ctx, planned.plan, { obj, grants: g, keyName, body, secret: planned.secret, rotation });
    if (!applied.ok) return applied.outcome;
    const gone = await deleteLeftovers(ctx.api, planned.plan.leftovers);
    if (gone) return gone;
    const inSecret = planned.plan.action === 'mint' || planned.inSecret === applied.id;
    return finish(ctx, { obj, grants: g, rotation }, applied, { connection: connectionKey(route.via), inSecret });
  },

  async cleanup(ctx, obj) {
    if (obj.spec.deletionPolicy === 'Orphan') return orphanKeys(ctx, obj);
    const mine = await keysOf(ctx.api, obj);
    if (!mine.ok) return mine.outcome;
    for (const k of mine.keys) {
      const gone = deleted(await ctx.api.call('DELETE /api/keys/:id', { params: { id: k.id } }), 'client key');
      if (gone) return gone;
    }
    return undefined; // the Secret is owned by the ApiKey: the garbage collector deletes it
  },
};
