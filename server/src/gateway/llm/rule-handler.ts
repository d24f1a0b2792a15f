// LLM rule handlers extend the generic RuleHandler with a response-side hook the LLM data plane calls itself after
// the upstream answered (responses are never changed: the hook can only observe and emit events).
import type { Exchange, RuleHandler } from '../pipeline/index.ts';

export interface LlmRuleHandler extends RuleHandler {
  /** Sees the generated text once the response is complete (prompt_guard phase `response`, alert only). */
  onCompletion?(x: Exchange, text: string): void;
}
