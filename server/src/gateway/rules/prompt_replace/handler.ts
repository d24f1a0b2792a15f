// prompt_replace (LLM only): redacts every prompt text (system, user, assistant and tool messages, as the provider's
// format carries them) before the request is forwarded. Responses are never changed. A match emits `dlp_match`
// with the number of replacements (never the matched text).
import { callOf } from '../../llm/exchange.ts';
import type { LlmRuleHandler } from '../../llm/rule-handler.ts';
import type { RuleEntry } from '../../pipeline/build.ts';
import { emitFor } from '../../pipeline/run.ts';
import { toolScope } from '../../pipeline/scope.ts';
import { Replacer } from '../regex.ts';
import type { PromptReplaceRule } from '@tollgate/contract';

export function buildPromptReplace(entries: RuleEntry<PromptReplaceRule>[]): LlmRuleHandler[] {
  return entries.map(({ rule, index }) => {
    const { replacer, error } = Replacer.compile(rule.pattern, rule.regex_flags, rule.replacement);
    if (!replacer) throw new Error(`prompt_replace#${index}: ${error}`);
    const ruleName = `prompt_replace#${index}`;
    return {
      ruleType: 'prompt_replace', index, ruleName, scope: toolScope(rule.tools),
      access(x) {
        const call = callOf(x);
        if (call) {
          const matches = redact(call.rewritePrompt.bind(call), replacer);
          if (matches) emitFor(x, { type: 'dlp_match', ruleName, details: { matches, phase: 'request' } });
        }
        return { kind: 'continue' };
      },
    };
  });
}

function redact(rewrite: (v: (t: string) => string | undefined) => boolean, replacer: Replacer): number {
  let matches = 0;
  rewrite((text) => {
    const r = replacer.apply(text);
    matches += r.count;
    return r.count ? r.text : undefined;
  });
  return matches;
}
