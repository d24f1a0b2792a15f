// What serves each rule type on each proxy kind: the one table the data planes build their pipelines from. Its type
// comes from the contract (RuleTypeOf, from each rule folder's `kinds`), so a rule type made valid on a kind without a
// server here is a compile error rather than a rule the gateway skips. buildPipeline also denies, at run time, any
// rule type the table it is given does not serve.
import type { McpRuleHandler } from '../mcp/rule-hooks.ts';
import type { LlmRuleHandler } from '../llm/rule-handler.ts';
import { buildIpAcl } from '../rules/ip_acl/handler.ts';
import { buildLambda } from '../rules/lambda/handler.ts';
import { buildModelRoute } from '../rules/model_route/handler.ts';
import { buildPromptGuard } from '../rules/prompt_guard/handler.ts';
import { buildPromptReplace } from '../rules/prompt_replace/handler.ts';
import { buildRateLimit } from '../rules/rate_limit/handler.ts';
import { buildTokensPerMinute } from '../rules/rate_limit/tokens-per-minute.ts';
import { buildResponseReplace } from '../rules/response_replace/handler.ts';
import { buildStaticCache } from '../rules/static_cache/handler.ts';
import { buildToolDescriptionInject } from '../rules/tool_description_inject/handler.ts';
import type { RuleServers } from './build.ts';

export const RULE_SERVERS: { mcp: RuleServers<'mcp', McpRuleHandler>; llm: RuleServers<'llm', LlmRuleHandler> } = {
  mcp: {
    ip_acl: buildIpAcl,
    rate_limit: buildRateLimit,
    static_cache: buildStaticCache,
    // Access and response phase; the response hooks are MCP messages (mcp/rule-hooks.ts).
    lambda: buildLambda,
    response_replace: buildResponseReplace,
    tool_description_inject: buildToolDescriptionInject,
    // Served outside the pipeline: the synthetic catalog (mcp/synthetic.ts) reads these rules from the proxy config
    // and answers resources/list and resources/read itself, so there is nothing to run per request.
    mcp_resource: () => [],
  },
  llm: {
    ip_acl: buildIpAcl,
    rate_limit: (entries) => [...buildRateLimit(entries), ...buildTokensPerMinute(entries)],
    static_cache: buildStaticCache,
    // Access phase only on LLM proxies (phase response is refused when the rules are saved).
    lambda: (entries, ctx) => buildLambda(entries.filter((e) => e.rule.phase === 'access'), ctx),
    prompt_replace: buildPromptReplace,
    prompt_guard: buildPromptGuard,
    model_route: buildModelRoute,
  },
};
