// McpProxy → an MCP server of the management API (POST/PATCH/DELETE /api/mcp), its tool discovery and its synthetic
// resources (keyed by uri).
import type { ApiClient, BodyOf, ResponseOf } from '@tollgate/contract';
import { mcpProxySpecSchema, type McpProxySpec } from '../kinds/specs.ts';
import { MAX_STATUS_TOOLS } from '../crds/status.ts';
import { remoteProxyName } from '../kinds/identity.ts';
import type { KubeObject } from '../kube/objects.ts';
import { sameValue } from './compare.ts';
import { desiredAuth, sameAuth, type InboundAuth } from './inbound-auth.ts';
import { ok, type Outcome } from './outcome.ts';
import { apiFailure, deleted, mapBody } from './remote.ts';
import { deleteRemoteProxy, ownerIn, syncProxy, type ProxyRoutes } from './proxy-sync.ts';
import type { ReconcileContext, Reconciler } from './types.ts';

type McpRecord = ResponseOf<'GET /api/mcp/:id'>;
type McpPatch = BodyOf<'PATCH /api/mcp/:id'>;

/** The status lists the first tools only: the whole object must fit in etcd. */
const toolNames = (tools: McpRecord['tools']) => tools.slice(0, MAX_STATUS_TOOLS).map((t) => t.name);

export const MCP_ROUTES: ProxyRoutes<McpRecord, BodyOf<'POST /api/mcp'>, McpPatch> = {
  what: 'MCP server', whats: 'MCP servers', secretField: 'authToken', secretLabel: 'upstream token',
  list: async (api) => mapBody(await api.call('GET /api/mcp'), (b) => b.servers),
  read: (api, id) => api.call('GET /api/mcp/:id', { params: { id } }),
  create: async (api, body) => mapBody(await api.call('POST /api/mcp', { body }), (b) => b.server),
  update: (api, id, body) => api.call('PATCH /api/mcp/:id', { params: { id }, body }),
  remove: (api, id) => api.call('DELETE /api/mcp/:id', { params: { id } }),
};

export interface McpDesired {
  name: string;
  url: string;
  authType: 'none' | 'bearer';
  auth: InboundAuth | null;
  toolPinning: McpProxySpec['toolPinning'];
  /** The upstream token and the version of its Secret, when authType is bearer. */
  token?: { value: string; version: string };
}

/** The fields of a PATCH that brings `remote` to `desired`; the token is sent again when its Secret changed. */
export function mcpPatch(remote: McpRecord, desired: McpDesired, sentSecretVersion: unknown): McpPatch {
  const patch: McpPatch = {};
  if (remote.name !== desired.name) patch.name = desired.name;
  if (remote.url !== desired.url) patch.url = desired.url;
  if (remote.authType !== desired.authType) patch.authType = desired.authType;
  if (desired.token && (sentSecretVersion !== desired.token.version || remote.authType !== 'bearer')) patch.authToken = desired.token.value;
  if (!sameAuth(desired.auth, remote.auth)) patch.auth = desired.auth;
  if (remote.toolPinning !== desired.toolPinning) patch.toolPinning = desired.toolPinning;
  return patch;
}

/**
 * What the discovered catalog depends on: the upstream's url, its auth and the token's Secret version. Discovery runs
 * until it has succeeded for the current one (recorded in status.discoveredFor), so a failed discovery after a
 * change is retried instead of leaving the old upstream's tools in place.
 */
export const discoverySignature = (d: McpDesired) => `${d.url} ${d.authType} ${d.token?.version ?? ''}`;

export const mcpProxyReconciler: Reconciler<typeof mcpProxySpecSchema> = {
  kind: 'McpProxy',
  spec: mcpProxySpecSchema,

  async reconcile(ctx, obj) {
    const { spec, metadata } = obj;
    const upstream = spec.upstreamAuth ?? { type: 'none' as const };
    const read = await upstreamToken(ctx, upstream);
    if (!read.ok) return read.outcome;
    const { token } = read;
    const desired: McpDesired = {
      name: remoteProxyName(spec.displayName ?? metadata.name, metadata.uid), url: spec.url, authType: upstream.type, auth: desiredAuth(spec.auth), toolPinning: spec.toolPinning, token,
    };
    const synced = await syncProxy(ctx.api, MCP_ROUTES, {
      statusId: obj.status?.id, uid: metadata.uid, adoptId: spec.adoptId, owner: ownerIn(ctx.objects, 'McpProxy'),
      create: { name: desired.name, url: desired.url, authType: desired.authType, ...(token ? { authToken: token.value } : {}), auth: desired.auth, toolPinning: desired.toolPinning },
      patchOf: (remote) => mcpPatch(remote, desired, obj.status?.secretVersion),
    });
    if (!synced.ok) return synced.outcome;
    const { remote } = synced;
    const signature = discoverySignature(desired);
    const fields = statusFields(remote, token, synced.created ? undefined : obj.status);

    const resources = await syncResources(ctx.api, remote.id, spec.resources);
    if (resources) return { ...resources, fields };

    if (spec.discoverTools) {
      const failed = await rediscover(ctx.api, remote, fields, signature);
      if (failed) return failed;
    }
    return withToolChanges(ctx.api, remote.id, spec.toolPinning, ok(fields, 'The remote object matches the spec', synced.event));
  },

  async cleanup(ctx, obj) {
    return deleteRemoteProxy(ctx.api, MCP_ROUTES, { statusId: obj.status?.id, uid: obj.metadata.uid, policy: obj.spec.deletionPolicy });
  },

  dependents: (obj, objects) => proxyDependents('McpProxy', obj, objects),
};

/** Status fields of a synced proxy; `previous` is the status of a remote object that existed before (none when just created). */
function statusFields(remote: { id: string; proxyHost: unknown; tools: McpRecord['tools'] }, token: McpDesired['token'], previous: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    id: remote.id, proxyHost: remote.proxyHost, tools: toolNames(remote.tools), secretVersion: token?.version ?? '',
    discoveredFor: previous?.discoveredFor ?? '',
  };
}

/** The bearer token for the upstream, read from its Secret; none unless upstreamAuth is `bearer`. */
async function upstreamToken(ctx: ReconcileContext, upstream: NonNullable<McpProxySpec['upstreamAuth']> | { type: 'none' }): Promise<{ ok: true; token: McpDesired['token'] } | { ok: false; outcome: Outcome }> {
  if (upstream.type !== 'bearer') return { ok: true, token: undefined };
  const s = await ctx.readSecret(upstream.tokenSecretRef!, 'upstreamAuth.tokenSecretRef');
  if (!s.ok) return s;
  return { ok: true, token: s };
}

/** Discovers the tools again when the upstream changed since the last discovery or none were found; updates `fields`. */
async function rediscover(api: ApiClient, remote: { id: string; tools: McpRecord['tools'] }, fields: Record<string, unknown>, signature: string): Promise<Outcome | undefined> {
  if (fields.discoveredFor === signature && remote.tools.length !== 0) return undefined;
  const d = await api.call('POST /api/mcp/:id/tools', { params: { id: remote.id } });
  if (!d.ok) return discoveryFailed(apiFailure(d.error, 'Discovering the tools of the upstream'), fields);
  fields.tools = toolNames(d.body.tools);
  fields.discoveredFor = signature;
  return undefined;
}

/** How often a proxy with pinning on is asked for pending tool changes: a gateway, not the operator, detects them. */
export const TOOL_CHANGES_POLL_MS = 60_000;
const MAX_NAMED_TOOLS = 10;

/**
 * The ToolChangesPending condition (docs/kubernetes.md, McpProxy): True while the upstream serves tool definitions
 * nobody approved. With toolPinning block the proxy refuses every request until then, so Ready is False too.
 */
export function toolChangesOutcome(o: Outcome, toolPinning: McpProxySpec['toolPinning'], pending: readonly { tool: string; change: string }[]): Outcome {
  if (toolPinning === 'off') {
    return { ...o, conditions: { ToolChangesPending: { status: 'False', reason: 'PinningOff', message: 'spec.toolPinning is off: tool definitions are not compared' } } };
  }
  const requeue: Outcome['requeue'] = { kind: 'after', ms: TOOL_CHANGES_POLL_MS };
  if (!pending.length) {
    return { ...o, requeue, conditions: { ToolChangesPending: { status: 'False', reason: 'NoChanges', message: 'The upstream serves the approved tool definitions' } } };
  }
  const named = pending.slice(0, MAX_NAMED_TOOLS).map((p) => `${p.tool} (${p.change})`).join(', ');
  const more = pending.length > MAX_NAMED_TOOLS ? ` and ${pending.length - MAX_NAMED_TOOLS} more` : '';
  const message = `${pending.length} tool definition(s) differ from the approved catalog: ${named}${more}. Review them with GET /api/mcp/:id/tool-changes or in the dashboard, then approve (POST /api/mcp/:id/tool-changes/approve); toolPinning ${toolPinning} applies until then`;
  const pendingCondition = { status: 'True' as const, reason: 'ToolDefinitionsChanged', message };
  const ready = toolPinning === 'block' ? { status: 'False' as const, reason: 'ToolChangesPending', message } : o.ready;
  return { ...o, ready, requeue, conditions: { ToolChangesPending: pendingCondition } };
}

/** Reads the pending tool changes of a proxy with pinning on, into its conditions; a failed read is retried with backoff. */
async function withToolChanges(api: ApiClient, id: string, toolPinning: McpProxySpec['toolPinning'], o: Outcome): Promise<Outcome> {
  if (toolPinning === 'off') return toolChangesOutcome(o, toolPinning, []);
  const r = await api.call('GET /api/mcp/:id/tool-changes', { params: { id } });
  if (!r.ok) return { ...apiFailure(r.error, 'Reading the pending tool changes'), fields: o.fields };
  return toolChangesOutcome(o, toolPinning, r.body.pending);
}

/** The proxy matches its spec but cannot serve its catalog yet: Synced, not Ready, retried with backoff. */
function discoveryFailed(o: Outcome, fields: Record<string, unknown>): Outcome {
  return {
    ...o, fields,
    synced: { status: 'True', reason: 'Synced', message: 'The remote object matches the spec' },
    ready: { status: 'False', reason: 'DiscoveryFailed', message: o.synced.message },
    requeue: { kind: 'backoff' },
    event: { type: 'Warning', reason: 'DiscoveryFailed', message: o.synced.message },
  };
}

/**
 * RuleSets of the namespace and ApiKeys of any namespace that refer to this proxy: they wait for its id, tools and
 * resources, and a shared proxy's grants decide whether they may use it.
 */
export function proxyDependents(kind: 'McpProxy' | 'LlmProxy', obj: KubeObject, objects: ReconcileContext['objects']) {
  const ns = obj.metadata.namespace!;
  const name = obj.metadata.name;
  const out: Array<{ kind: 'ApiKey' | 'RuleSet'; namespace: string; name: string }> = [];
  for (const rs of objects.list('RuleSet', ns)) {
    const t = (rs.spec as { targetRef?: { kind?: string; name?: string } }).targetRef;
    if (t?.kind === kind && t.name === name) out.push({ kind: 'RuleSet', namespace: ns, name: rs.metadata.name });
  }
  const field = kind === 'McpProxy' ? ['mcpPermissions'] : ['llmPermissions', 'llmBudgets'];
  for (const key of objects.list('ApiKey')) {
    const keyNs = key.metadata.namespace!;
    const spec = key.spec as Record<string, Array<{ proxyRef?: { name?: string; namespace?: string } }> | undefined>;
    const names = (p: { proxyRef?: { name?: string; namespace?: string } }) => p.proxyRef?.name === name && (p.proxyRef.namespace ?? keyNs) === ns;
    if (field.some((f) => spec[f]?.some(names))) out.push({ kind: 'ApiKey', namespace: keyNs, name: key.metadata.name });
  }
  return out;
}

/** The proxy's synthetic resources, keyed by uri: create the missing, update what differs, delete the rest. */
async function syncResources(api: ApiClient, id: string, desired: McpProxySpec['resources']): Promise<Outcome | undefined> {
  const list = await api.call('GET /api/mcp/:id/resources', { params: { id } });
  if (!list.ok) return apiFailure(list.error, 'Listing the synthetic resources');
  const byUri = new Map(list.body.resources.map((r) => [r.uri, r]));
  for (const want of desired) {
    const have = byUri.get(want.uri);
    byUri.delete(want.uri);
    const body = { uri: want.uri, name: want.name, description: want.description ?? null, mimeType: want.mimeType, content: want.content };
    if (!have) {
      const r = await api.call('POST /api/mcp/:id/resources', { params: { id }, body });
      if (!r.ok) return apiFailure(r.error, `Creating the resource ${want.uri}`);
      continue;
    }
    const one = { id, rid: have.id };
    const full = await api.call('GET /api/mcp/:id/resources/:rid', { params: one });
    if (!full.ok) return apiFailure(full.error, `Reading the resource ${want.uri}`);
    const current = { uri: full.body.uri, name: full.body.name, description: full.body.description ?? null, mimeType: full.body.mimeType, content: full.body.content };
    if (!sameValue(current, body)) {
      const r = await api.call('PATCH /api/mcp/:id/resources/:rid', { params: one, body });
      if (!r.ok) return apiFailure(r.error, `Updating the resource ${want.uri}`);
    }
  }
  for (const extra of byUri.values()) {
    const gone = deleted(await api.call('DELETE /api/mcp/:id/resources/:rid', { params: { id, rid: extra.id } }), `resource ${extra.uri}`);
    if (gone) return gone;
  }
  return undefined;
}
