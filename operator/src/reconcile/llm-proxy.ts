// LlmProxy → an LLM proxy of the management API (POST/PATCH/DELETE /api/llm).
import { normalizeModels, type llmProxyRecordSchema } from '@tollgate/contract';
import type { z } from 'zod';
import { llmProxySpecSchema } from '../kinds/specs.ts';
import { remoteProxyName } from '../kinds/identity.ts';
import { sameValue } from './compare.ts';
import { desiredAuth, sameAuth, type InboundAuth } from './inbound-auth.ts';
import { proxyDependents } from './mcp-proxy.ts';
import { ok } from './outcome.ts';
import { deleteRemote, findRemoteProxy } from './remote.ts';
import { syncProxy, type ProxyEndpoint } from './proxy-sync.ts';
import type { Reconciler } from './types.ts';

type LlmRecord = z.output<typeof llmProxyRecordSchema>;

const path = (id: string) => `/api/llm/${encodeURIComponent(id)}`;

export const LLM_ENDPOINT: ProxyEndpoint<LlmRecord> = {
  collection: '/api/llm', listField: 'proxies', what: 'LLM proxy', whats: 'LLM proxies',
  created: (body) => body as LlmRecord,
  secretField: 'providerKey', secretLabel: 'provider key',
};

export type LlmDesired = Pick<LlmRecord, 'name' | 'provider' | 'allowedModels' | 'defaultModel' | 'logConversations' | 'budget'> & {
  auth: InboundAuth | null;
  /** The provider key and the version of its Secret; undefined when the spec references none. */
  key?: { value: string; version: string };
};

const COMPARED = ['name', 'provider', 'allowedModels', 'defaultModel', 'logConversations', 'budget'] as const;

/** The fields of a PATCH that brings `remote` to `desired`; the write-only key is sent when its Secret changed. */
export function llmPatch(remote: LlmRecord, desired: LlmDesired, sentSecretVersion: unknown): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const f of COMPARED) if (!sameValue(desired[f], remote[f])) patch[f] = desired[f];
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
    const synced = await syncProxy(ctx.api, LLM_ENDPOINT, {
      statusId: obj.status?.id, uid: metadata.uid,
      create: { ...body, ...(key ? { providerKey: key.value } : {}) },
      patchOf: (remote) => llmPatch(remote, desired, obj.status?.secretVersion),
    });
    if (!synced.ok) return synced.outcome;
    return ok({ id: synced.remote.id, proxyHost: synced.remote.proxyHost, secretVersion: key?.version ?? '' }, 'The remote object matches the spec', synced.event);
  },

  async cleanup(ctx, obj) {
    const found = await findRemoteProxy<LlmRecord>(ctx.api, LLM_ENDPOINT, obj.status?.id, obj.metadata.uid);
    if (!found.ok) return found.outcome;
    return found.remote ? deleteRemote(ctx.api, path(found.remote.id), 'LLM proxy') : undefined;
  },

  dependents: (obj, objects) => proxyDependents('LlmProxy', obj, objects),
};
