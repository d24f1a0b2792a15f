// prompt_guard (LLM only), mode `regex`: the rule's detectors (detectors.ts) run over the concatenated role=user
// prompt texts. Every firing emits `prompt_guard_hit` (ids of the detectors that fired, never the text). Phase
// `request`: `block` answers 403, `rewrite` replaces each match in the user texts with rewrite_template ($0..$9),
// `alert` only emits. Phase `response`: the detectors run over the generated text after the answer was sent, and
// only alert (responses are never changed). Mode `judge` is accepted by configuration and inert at runtime.
import { callOf } from '../../llm/exchange.ts';
import type { LlmRuleHandler } from '../../llm/rule-handler.ts';
import type { RuleEntry } from '../../pipeline/build.ts';
import { emitFor } from '../../pipeline/run.ts';
import { toolScope } from '../../pipeline/scope.ts';
import type { Exchange, Verdict } from '../../pipeline/types.ts';
import { replaceAll } from '../regex.ts';
import { COMPILED_DETECTORS, type CompiledDetector } from './detectors.ts';
import type { PromptGuardRule } from '@tollgate/contract';

export const PROMPT_GUARD_BLOCKED = 'Request blocked by prompt guard';

export function buildPromptGuard(entries: RuleEntry<PromptGuardRule>[]): LlmRuleHandler[] {
  return entries.filter((e) => e.rule.mode === 'regex').map(({ rule, index }) => {
    const detectors = [...new Set(rule.detectors)].map((id) => COMPILED_DETECTORS.get(id)).filter((d): d is CompiledDetector => !!d);
    const base = { ruleType: 'prompt_guard', index, ruleName: `prompt_guard#${index}`, scope: toolScope(rule.tools) };
    if (rule.phase === 'response') {
      return { ...base, onCompletion: (x: Exchange, text: string) => alertOnCompletion(x, base.ruleName, detectors, text) };
    }
    return { ...base, access: (x: Exchange) => guardRequest(x, rule, base.ruleName, detectors) };
  });
}

/**
 * The detectors whose pattern occurs in the text. They run on one UTF-8 copy: given the JS string, node-re2 would
 * copy it into a new Buffer for each detector (measured with 16 detectors: 27 µs instead of 11 on a 200-character
 * prompt, 181 instead of 133 on 4,000 characters).
 */
function fired(detectors: readonly CompiledDetector[], text: string): CompiledDetector[] {
  if (!text) return [];
  const utf8 = Buffer.from(text, 'utf8');
  return detectors.filter((d) => d.test.test(utf8));
}

function guardRequest(x: Exchange, rule: PromptGuardRule, ruleName: string, detectors: readonly CompiledDetector[]): Verdict {
  const call = callOf(x);
  if (!call) return { kind: 'continue' };
  const hits = fired(detectors, call.userText());
  if (!hits.length) return { kind: 'continue' };
  const ids = hits.map((d) => d.id);
  emitFor(x, { type: 'prompt_guard_hit', ruleName, details: { detectors: ids, action: rule.action, phase: 'request' } });
  if (rule.action === 'block') {
    return { kind: 'deny', status: 403, message: PROMPT_GUARD_BLOCKED, event: { type: 'deny', ruleName, details: { reason: 'prompt_guard', detectors: ids } } };
  }
  if (rule.action === 'rewrite') {
    call.rewritePrompt((text, role) => {
      if (role !== 'user') return undefined;
      let out = text;
      for (const d of hits) out = replaceAll(d.global, out, rule.rewrite_template).text;
      return out === text ? undefined : out;
    });
  }
  return { kind: 'continue' };
}

function alertOnCompletion(x: Exchange, ruleName: string, detectors: readonly CompiledDetector[], text: string): void {
  const hits = fired(detectors, text);
  if (hits.length) emitFor(x, { type: 'prompt_guard_hit', ruleName, details: { detectors: hits.map((d) => d.id), action: 'alert', phase: 'response' } });
}
