// The LLM request attached to a pipeline Exchange, so LLM rule handlers (prompt_replace, prompt_guard, model_route,
// tokens_per_minute) reach it through the generic hook signature without widening the shared Exchange type.
import type { Exchange } from '../pipeline/index.ts';
import type { LlmCall } from './call.ts';

const calls = new WeakMap<Exchange, LlmCall>();

export function attachCall(x: Exchange, call: LlmCall): void {
  calls.set(x, call);
}

/** The LLM request of an exchange; undefined on MCP exchanges (LLM rules then do nothing). */
export function callOf(x: Exchange): LlmCall | undefined {
  return calls.get(x);
}
