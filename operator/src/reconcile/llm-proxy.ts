// LlmProxy → an LLM proxy of the management API (POST/PATCH/DELETE /api/llm).
import { normalizeModels, type BodyOf, type ResponseOf } from '@tollgate/contract';
import { llmProxySpecSchema } from '../kinds/specs.ts';
import { remoteProxyName } from '../kinds/identity.ts';
import { sameValue } from './compare.ts';
import { desiredAuth, sameAuth, type InboundAuth } from './inbound-auth.ts';
import { proxyDependents } from './mcp-proxy.ts';
import { ok } from './outcome.ts';
import { mapBody } from './remote.ts';
import { deleteRemoteProxy, ownerIn, syncProxy, type ProxyRoutes } from './proxy-sync.ts';
import type { Reconciler } from './types.ts';

/** A proxy as listed; reading one adds its DNS pin, which the operator does not look at. */
type LlmRecord = ResponseOf<'PATCH /api/llm/:id'>;
type LlmPatch = BodyOf<'PATCH /api/llm/:id'>;

export const LLM_ROUTES: ProxyRoutes<LlmRecord, BodyOf<'POST /api/llm'>, LlmPatch> = {
  what: 'LLM proxy', whats: 'LLM proxies', secretField: 'providerKey', secretLabel: 'provider key',
  list: async (api) => mapBody(await api.call('GET /api/llm'), (b) => b.proxies),
  read: (api, id) => api.call('GET /api/llm/:id', { params: { id } }),
  create: (api, body) => api.call('POST /api/llm', { body }),
  update: (api, id, body) => api.call('PATCH /api/llm/:id', { params: { id }, body }),
  remove: (api, id) => api.call('DELETE /api/llm/:id', { params: { id } }),
};

export type LlmDesired = Pick<LlmRecord, 'name' | 'provider' | 'allowedModels' | 'defaultModel' | 'logConversations' | 'budget'> & {
  auth: InboundAuth | null;
  /** The provider key and the version of its Secret; undefined when the spec references none. */
  key?: { value: string; version: string };
};

const COMPARED = ['name', 'provider', 'allowedModels', 'defaultModel', 'logConversations', 'budget'] as const;

/** The fields of `desired` named in `keys` whose value differs from `remote`'s. */
function differing<T, K extends keyof T>(desired: T, remote: Pick<T, K>, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (!sameValue(desired[k], remote[k])) out[k] = desired[k];
  return out;
}

/** The fields of a PATCH that brings `remote` to `desired`; the write-only key is sent when its Secret changed. */
export function llmPatch(remote: LlmRecord, desired: LlmDesired, sentSecretVersion: unknown): LlmPatch {
  const patch: LlmPatch = differing(desired, remote, COMPARED);
  if (!sameAuth(desired.auth, remote.auth)) patch.auth = desired.auth;
  if (desired.key && sentSecretVersion !== desired.key.version) patch.providerKey = desired.key.value;
  if (!desired.key && sentSecretVersion) patch.providerKey = null; // the reference was removed
  return patch;
}

export const llmProxyReconciler: Reconciler<typeof llmProxySpecSchema> = {
  kind: 'LlmProxy',
  spec: llmProxySpecSchema,

  async reconcile(ctx, obj) {
    const { spec, metadata } = obj;
    let key: LlmDesired['key'];
    if (spec.providerKeySecretRef) {
      const s = await ctx.readSecret(spec.providerKeySecretRef, 'providerKeySecretRef');
      if (!s.ok) return s.outcome;
      key = s;
    }
    const desired: LlmDesired = {
      name: remoteProxyName(spec.displayName ?? metadata.name, metadata.uid),
      provider: spec.provider,
      allowedModels: normalizeModels(spec.allowedModels),
      defaultModel: spec.defaultModel ?? null,
      logConversations: spec.logConversations,
      auth: desiredAuth(spec.auth),
      budget: spec.budget ?? null,
      key,
    };
    const { key: _key, ...body } = desired;
    const synced = await syncProxy(ctx.api, LLM_ROUTES, {
      statusId: obj.status?.id, uid: metadata.uid, adoptId: spec.adoptId, owner: ownerIn(ctx.objects, 'LlmProxy'),
      create: { ...body, ...(key ? { providerKey: key.value } : {}) },
      patchOf: (remote) => llmPatch(remote, desired, obj.status?.secretVersion),
    });
    if (!synced.ok) return synced.outcome;
    return ok({ id: synced.remote.id, proxyHost: synced.remote.proxyHost, secretVersion: key?.version ?? '' }, 'The remote object matches the spec', synced.event);
  },

  async cleanup(ctx, obj) {
    return deleteRemoteProxy(ctx.api, LLM_ROUTES, { statusId: obj.status?.id, uid: obj.metadata.uid, policy: obj.spec.deletionPolicy });
  },

  dependents: (obj, objects) => proxyDependents('LlmProxy', obj, objects),
};
