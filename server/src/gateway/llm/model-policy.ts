// Which models a caller may use on an LLM proxy: the proxy's allowedModels (when non-empty) and, for a client key,
// its tags `llm:<id>:model:<model>` or `llm:<id>:model:*` (spec: default-deny per proxy; a key with no tag for this
// proxy reaches nothing on it). JWT callers have no tags: allowedModels alone applies. Built once per config
// version; the authorize phase and the model listing filter (model-listing.ts) both ask it, so a listing never
// shows a model a completion would refuse.
import type { LlmProxyConfig } from '../../snapshot/snapshot.ts';
import type { Identity } from '../inbound-auth/types.ts';

export type ModelRefusal = 'model_not_allowed' | 'no_proxy_grant' | 'model_not_granted';

/** Model names compare without Gemini's `models/` prefix. */
export function modelName(m: string): string {
  return m.startsWith('models/') ? m.slice('models/'.length) : m;
}

export class ModelPolicy {
  private readonly allowed: ReadonlySet<string> | undefined;
  private readonly prefix: string;

  constructor(proxy: LlmProxyConfig) {
    this.allowed = proxy.allowedModels.length ? new Set(proxy.allowedModels.map(modelName)) : undefined;
    this.prefix = `llm:${proxy.id}:model:`;
  }

  /**
   * Whether the caller may use `model`. `undefined` is a request whose model the gateway cannot see (a body
   * without one, a Mistral agent): only a caller that may use every model passes.
   */
  check(identity: Identity | undefined, model: string | undefined): ModelRefusal | undefined {
    const m = model === undefined ? undefined : modelName(model);
    if (this.allowed && (m === undefined || !this.allowed.has(m))) return 'model_not_allowed';
    return this.grant(identity, (granted) => granted === '*' || (m !== undefined && modelName(granted) === m));
  }

  /** Whether the caller may reach this proxy at all (a model listing names no model). */
  checkProxy(identity: Identity | undefined): ModelRefusal | undefined {
    return this.grant(identity, () => true);
  }

  /** The listing filter: the models this caller may use. */
  visibleTo(identity: Identity | undefined): (model: string) => boolean {
    return (model) => this.check(identity, model) === undefined;
  }

  private grant(identity: Identity | undefined, covers: (granted: string) => boolean): ModelRefusal | undefined {
    if (identity?.mode !== 'svc_api_key') return undefined;
    let any = false;
    for (const t of identity.tags) {
      if (!t.startsWith(this.prefix)) continue;
      any = true;
      if (covers(t.slice(this.prefix.length))) return undefined;
    }
    return any ? 'model_not_granted' : 'no_proxy_grant';
  }
}
