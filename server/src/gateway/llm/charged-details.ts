// The details of an LLM outcome event. A finished request (accounting.ts) and a stream charged by a recovery
// (stream-checkpoints.ts) write the same fields.
import { microToCents, type TokenUsage } from '../../pricing/cost.ts';

/** The request's side of an outcome event: the answer's status, the endpoint, and where model_route sent it. */
export interface RequestDetails {
  status: number;
  endpoint: string;
  requested_model?: string;
  routed_by?: string;
}

/** What was charged for the request, and whether its tokens were estimated. */
export interface Charged {
  usage: TokenUsage;
  costMicro: number;
  /** Absent when nothing was charged (an endpoint that is not metered). */
  pricingVersion: string | undefined;
  estimated: boolean;
}

export interface OutcomeParts {
  /** Why the request failed; absent on an `allow` event. */
  reason?: string;
  request: RequestDetails;
  streamed: boolean;
  aborted?: string;
  charged: Charged;
  upstreamError?: unknown;
}

/**
 * One object literal of a fixed shape, not spreads of the parts: a spread-built object of these fields took 568 bytes
 * of heap against 147, and every event's details wait in the audit buffer for up to 250 ms, long enough to survive a
 * scavenge and be copied by it (docs/performance.md, "What outlives a scavenge").
 */
export function outcomeDetails(p: OutcomeParts): Record<string, unknown> {
  const { request: r, charged: c } = p;
  return {
    reason: p.reason, status: r.status, endpoint: r.endpoint, requested_model: r.requested_model, routed_by: r.routed_by,
    streamed: p.streamed, aborted: p.aborted,
    input_tokens: c.usage.inputTokens, cached_input_tokens: c.usage.cachedInputTokens, output_tokens: c.usage.outputTokens,
    cost_cents: microToCents(c.costMicro), pricing_version: c.pricingVersion, estimated: c.estimated || undefined,
    upstream_error: p.upstreamError,
  };
}
