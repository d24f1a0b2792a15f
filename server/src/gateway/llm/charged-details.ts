// The fields an LLM outcome event carries about what was charged. A finished request (accounting.ts) and a stream
// charged by a recovery (stream-checkpoints.ts) write the same ones.
import { microToCents, type TokenUsage } from '../../pricing/cost.ts';

export function chargedDetails(usage: TokenUsage, costMicro: number, pricingVersion: string | undefined, estimated: boolean): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens, cached_input_tokens: usage.cachedInputTokens, output_tokens: usage.outputTokens,
    cost_cents: microToCents(costMicro), pricing_version: pricingVersion, estimated: estimated || undefined,
  };
}
