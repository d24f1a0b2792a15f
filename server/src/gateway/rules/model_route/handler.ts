// model_route (LLM only): the pattern is tested against the concatenation of all role=user prompt texts; the first
// matching model_route rule sets the model the upstream receives (target_model), whatever the client asked for.
// allowedModels and key tags are checked against the client's model before (authorize phase): routing is the
// owner's own policy. Gemini carries the model in the path, which is rewritten instead of the body.
import { callOf } from '../../llm/exchange.ts';
import type { LlmRuleHandler } from '../../llm/rule-handler.ts';
import type { RuleEntry } from '../../pipeline/build.ts';
import { toolScope } from '../../pipeline/scope.ts';
import { compileUserRegex } from '../regex.ts';
import type { ModelRouteRule } from '@tollgate/contract';

export function buildModelRoute(entries: RuleEntry<ModelRouteRule>[]): LlmRuleHandler[] {
  return entries.map(({ rule, index }) => {
    const { re, error } = compileUserRegex(rule.pattern, rule.regex_flags);
    if (!re) throw new Error(`model_route#${index}: ${error}`);
    const ruleName = `model_route#${index}`;
    return {
      ruleType: 'model_route', index, ruleName, scope: toolScope(rule.tools),
      access(x) {
        const call = callOf(x);
        // First match wins: once a model_route rule routed the request, later ones do not look.
        if (call?.endpoint && !call.routedBy && re.test(call.userText())) {
          call.setModel(rule.target_model, ruleName);
          x.facts.model = rule.target_model;
        }
        return { kind: 'continue' };
      },
    };
  });
}
