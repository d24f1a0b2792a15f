// What the LLM data plane builds once per config version and proxy: the generic pipeline with the LLM rule types
// (prompt_replace, prompt_guard, model_route, rate_limit with tokens_per_minute), the provider adapter, the
// authorize phase and the upstream target. The request path only runs what is built here.
import type { LlmProxyConfig } from '../../snapshot/snapshot.ts';
import { buildPipeline, type Authorize, type BuildContext, type Pipeline, type RuleBuilders } from '../pipeline/index.ts';
import { RULE_SERVERS } from '../pipeline/rule-servers.ts';
import { createAuthorize } from './authorize.ts';
import { ModelPolicy } from './model-policy.ts';
import { PROVIDER_ADAPTERS, type ProviderAdapter } from './providers/index.ts';
import type { LlmRuleHandler } from './rule-handler.ts';
import { providerTarget, type UpstreamTarget } from './upstream.ts';
import type { PinnedPool } from '../upstream/pool.ts';

export interface LlmRuntime {
  proxy: LlmProxyConfig;
  pipeline: Pipeline<LlmRuleHandler>;
  adapter: ProviderAdapter;
  /** The models a caller may use: the authorize phase and the model listing filter ask it. */
  models: ModelPolicy;
  authorize: Authorize;
  /** Undefined while the proxy has no DNS pin for its provider host (requests get 502). */
  target: UpstreamTarget | undefined;
  /** Rules that look at the generated text (prompt_guard phase response). */
  completionHooks: LlmRuleHandler[];
  /** The request body is handed to the pipeline only when a rule reads it (lambda). */
  needsBody: boolean;
  /** static_cache rules present: non-streaming requests get cache material. */
  caches: boolean;
  /** Generated text is collected (conversation logs, response-phase prompt_guard); otherwise only usage is read. */
  wantsText: boolean;
}

/** ctx is what the pipeline is built from, handed on as is. */
export function buildLlmRuntime(ctx: BuildContext & { proxy: LlmProxyConfig }, pools: PinnedPool, builders: RuleBuilders<LlmRuleHandler> = RULE_SERVERS.llm): LlmRuntime {
  const { proxy } = ctx;
  const pipeline = buildPipeline<LlmRuleHandler>(ctx, builders);
  const completionHooks = pipeline.handlers.filter((h) => h.onCompletion);
  const models = new ModelPolicy(proxy);
  return {
    proxy,
    pipeline,
    adapter: PROVIDER_ADAPTERS[proxy.provider],
    models,
    authorize: createAuthorize(models),
    target: providerTarget(pools, proxy.upstreamUrl, proxy.pin),
    completionHooks,
    wantsText: proxy.logConversations || completionHooks.length > 0,
    needsBody: pipeline.handlers.some((h) => h.ruleType === 'lambda'),
    caches: pipeline.handlers.some((h) => h.ruleType === 'static_cache'),
  };
}
