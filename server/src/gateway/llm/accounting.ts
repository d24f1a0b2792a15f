// The log phase of an LLM request, after the client has its answer: tokens (read from the response, or estimated
// as characters / 4 when they could not be read), cost from the pricing table in force when the request started,
// budget and token-rate reconciliation, the usage row and the conversation log (both written in batches), the
// response-phase prompt_guard alerts, and the outcome event.
import { randomUUID } from 'node:crypto';
import type { LlmProxyConfig } from '../../contract/snapshot.ts';
import type { BudgetHold, BudgetLedger } from '../../budgets/ledger.ts';
import { dayNumber } from '../../budgets/windows.ts';
import { summarize } from '../../conversation-logs/store.ts';
import { microToCents, priceUsage, type TokenUsage } from '../../pricing/cost.ts';
import { emitFor, type Exchange } from '../pipeline/index.ts';
import type { AccountingWriter } from './accounting-writer.ts';
import type { LlmCall } from './call.ts';
import { estimateUsage, type Metered } from './meter.ts';
import type { LlmRuleHandler } from './rule-handler.ts';

const ZERO: TokenUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

export interface AccountingDeps {
  ledger: BudgetLedger;
  writer: AccountingWriter;
}

export interface Completed {
  status: number;
  metered: Metered | undefined;
  /** The client went away or the upstream broke mid-answer. */
  aborted: boolean;
  startMs: number;
}

/** Gives back what the request held (budget reservation, token reservations) when it never reached the upstream. */
export async function releaseHolds(d: AccountingDeps, call: LlmCall, hold: BudgetHold | undefined): Promise<void> {
  if (hold) await d.ledger.release(hold);
  await runSettlers(call, 0);
}

async function runSettlers(call: LlmCall, tokens: number): Promise<void> {
  const settlers = call.settlers.splice(0);
  await Promise.all(settlers.map((f) => f(tokens)));
}

function usageOf(call: LlmCall, c: Completed): { usage: TokenUsage; estimated: boolean } {
  const m = c.metered;
  if (m?.usage) return { usage: m.usage, estimated: false };
  const ok = c.status >= 200 && c.status < 300;
  if (m && call.accounted && ok) return { usage: estimateUsage(call.bodyBytes, m), estimated: true };
  return { usage: ZERO, estimated: false };
}

export async function accountCompleted(
  d: AccountingDeps, x: Exchange, call: LlmCall, hold: BudgetHold | undefined, c: Completed, completionHooks: readonly LlmRuleHandler[],
): Promise<void> {
  const proxy = x.proxy as LlmProxyConfig;
  const { usage, estimated } = usageOf(call, c);
  const model = call.model ?? '';
  const priced = priceUsage(proxy.provider, model, usage, c.startMs);
  const cost = call.accounted ? priced.costMicroCents : 0;
  const nowMs = x.s.clock.nowMs();
  const credentialId = x.identity?.credentialId ?? '';
  try {
    await Promise.all([hold ? d.ledger.settle(hold, cost, nowMs) : undefined, runSettlers(call, usage.inputTokens + usage.outputTokens)]);
  } catch (err) {
    x.s.log.warn('LLM budget or token-rate reconciliation failed', { err, proxy: proxy.id });
  }
  const counted = call.accounted && (c.metered?.usage !== undefined || (c.status >= 200 && c.status < 300));
  if (counted) {
    d.writer.addUsage({
      llmId: proxy.id, day: dayNumber(c.startMs), credentialId, model, pricingVersion: priced.pricingVersion, requests: 1,
      inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens, outputTokens: usage.outputTokens,
      estimatedRequests: estimated ? 1 : 0, costMicroCents: cost,
    });
  }
  const text = c.metered?.text ?? '';
  if (proxy.logConversations && call.accounted) {
    const cap = proxy.limits.llmMaxRespBodyKb * 1024;
    d.writer.addLog({
      id: randomUUID(), llmId: proxy.id, credentialId, tsMs: c.startMs, model, status: c.status, streamed: call.stream,
      inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens, outputTokens: usage.outputTokens,
      costMicroCents: cost, pricingVersion: priced.pricingVersion,
      prompt: call.body().toString('utf8').slice(0, cap), completion: text.slice(0, cap),
      requestSummary: summarize(call.lastUserText()), responseSummary: summarize(text),
    });
  }
  for (const h of completionHooks) if (text) h.onCompletion?.(x, text);
  emitFor(x, {
    type: 'allow',
    details: {
      status: c.status, endpoint: call.endpoint?.kind ?? 'passthrough', streamed: call.stream, aborted: c.aborted || undefined,
      input_tokens: usage.inputTokens, cached_input_tokens: usage.cachedInputTokens, output_tokens: usage.outputTokens,
      cost_cents: microToCents(cost), pricing_version: call.accounted ? priced.pricingVersion : undefined, estimated: estimated || undefined,
      requested_model: call.routedBy ? call.requestedModel : undefined, routed_by: call.routedBy,
      upstream_error: c.metered?.error,
    },
  });
}
