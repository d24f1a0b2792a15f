// The authorize phase of LLM requests (after authentication): the endpoint must be one the proxy serves, the body
// must be JSON where the endpoint needs it, the model must be in a non-empty allowedModels (403), and a client key
// must carry `llm:<id>:model:<model>` or `llm:<id>:model:*` (spec: default-deny per proxy; a key with no tag for
// this proxy reaches nothing on it). JWT callers have no tags: allowedModels alone applies.
import type { LlmProxyConfig } from '../../snapshot/snapshot.ts';
import { Msg } from '../../http/errors.ts';
import type { Authorize, Verdict } from '../pipeline/index.ts';
import { callOf } from './exchange.ts';

export const LlmMsg = {
  unsupported: 'Endpoint not supported by this LLM proxy',
  modelNotAllowed: 'Model not allowed on this LLM proxy',
  keyModelNotAllowed: 'This API key may not use this model',
  keyNoAccess: 'This API key has no access to this LLM proxy',
  budgetProxy: 'Budget exceeded for this LLM proxy',
  budgetKey: 'Budget exceeded for this API key',
  noProviderKey: 'This LLM proxy has no provider key',
  notPinned: 'Provider address is not resolved; re-resolve the LLM proxy',
  upstreamUnreachable: 'Upstream unreachable',
  upstreamTimeout: 'Upstream timed out',
} as const;

const READ_ONLY = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Model names compare without Gemini's `models/` prefix. */
export function modelName(m: string): string {
  return m.startsWith('models/') ? m.slice('models/'.length) : m;
}

function deny(status: number, message: string, reason: string, extra: Record<string, unknown> = {}): Verdict {
  return { kind: 'deny', status, message, event: { type: 'deny', details: { reason, phase: 'authorize', ...extra } } };
}

/** The key's grant on this proxy: none at all, or whether it covers `model`. */
function keyGrant(tags: readonly string[], prefix: string, model: string | undefined): 'none' | 'model' | 'other' {
  let any = false;
  for (const t of tags) {
    if (!t.startsWith(prefix)) continue;
    any = true;
    const m = t.slice(prefix.length);
    if (m === '*' || model === undefined || modelName(m) === model) return 'model';
  }
  return any ? 'other' : 'none';
}

export function createAuthorize(proxy: LlmProxyConfig): Authorize {
  const allowed = proxy.allowedModels.length ? new Set(proxy.allowedModels.map(modelName)) : undefined;
  const prefix = `llm:${proxy.id}:model:`;
  return (x) => {
    const call = callOf(x);
    if (!call) return deny(500, 'Internal error', 'no_call');
    if (!call.endpoint && !READ_ONLY.has(x.req.method ?? 'GET')) return deny(404, LlmMsg.unsupported, 'unsupported_endpoint');
    if (call.invalidBody) return deny(400, Msg.invalidJson, 'invalid_json');
    const model = call.requestedModel !== undefined ? modelName(call.requestedModel) : undefined;
    if (model !== undefined && allowed && !allowed.has(model)) return deny(403, LlmMsg.modelNotAllowed, 'model_not_allowed');
    if (x.identity?.mode !== 'svc_api_key') return { kind: 'continue' };
    const grant = keyGrant(x.identity.tags, prefix, model);
    if (grant === 'none') return deny(403, LlmMsg.keyNoAccess, 'no_proxy_grant');
    if (grant === 'other') return deny(403, LlmMsg.keyModelNotAllowed, 'model_not_granted');
    return { kind: 'continue' };
  };
}
