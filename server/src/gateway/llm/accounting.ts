// The log phase of an LLM request, after the client has its answer: tokens (read from the response, or estimated
// as characters / 4 when they could not be read), cost from the pricing table in force when the request started,
// budget and token-rate reconciliation, the usage row and the conversation log (both written in batches), the
// response-phase prompt_guard alerts, and the outcome event.
import { randomUUID } from 'node:crypto';
import type { SpendCharge } from '../../budgets/durable.ts';
import type { LlmProxyConfig } from '../../snapshot/snapshot.ts';
import type { BudgetHold, BudgetLedger } from '../../budgets/ledger.ts';
import { dayNumber } from '../../budgets/windows.ts';
import { summarize } from '../../conversation-logs/store.ts';
import { priceUsage, type TokenUsage } from '../../pricing/cost.ts';
import { auditEventFor, emitFor, type EventSpec, type Exchange } from '../pipeline/index.ts';
import type { AccountingSink } from '../capabilities.ts';
import { outcomeDetails, type RequestDetails } from './charged-details.ts';
import type { LlmCall } from './call.ts';
import type { LiveStream, StreamRecord } from './live-streams.ts';
import { deliveredUsage, estimateUsage, type Metered, type ResponseMeter } from './meter.ts';
import type { UsageIncrement } from '../../usage/rows.ts';
import type { LlmRuleHandler } from './rule-handler.ts';

const ZERO: TokenUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

export interface AccountingDeps {
  ledger: BudgetLedger;
  /** Where usage rows, conversation logs and the ends of checkpointed streams go (the batched writer). */
  writer: AccountingSink;
}

/** false: the whole answer went through. An upstream that broke off makes the request's event an `error`. */
export type Aborted = false | 'client_gone' | 'upstream_timeout' | 'upstream_broken';

export interface Completed {
  status: number;
  metered: Metered | undefined;
  /** Whether the answer was cut short, and by which side. */
  aborted: Aborted;
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

/** What the log phase worked out for one request. */
interface Outcome {
  proxy: LlmProxyConfig;
  call: LlmCall;
  c: Completed;
  usage: TokenUsage;
  estimated: boolean;
  model: string;
  pricingVersion: string;
  cost: number;
  credentialId: string;
  text: string;
}

function outcomeOf(x: Exchange, call: LlmCall, c: Completed): Outcome {
  const proxy = x.proxy as LlmProxyConfig;
  const { usage, estimated } = usageOf(call, c);
  const model = call.model ?? '';
  const priced = priceUsage(proxy.provider, model, usage, c.startMs);
  return {
    proxy, call, c, usage, estimated, model, pricingVersion: priced.pricingVersion,
    cost: call.accounted ? priced.costMicroCents : 0, credentialId: x.identity?.credentialId ?? '', text: c.metered?.text ?? '',
  };
}

/** A usage row for requests the provider answered successfully or reported usage for. */
function usageRow(o: Outcome): UsageIncrement | undefined {
  const ok = o.c.status >= 200 && o.c.status < 300;
  if (!o.call.accounted || (!ok && o.c.metered?.usage === undefined)) return undefined;
  return {
    llmId: o.proxy.id, day: dayNumber(o.c.startMs), credentialId: o.credentialId, model: o.model, pricingVersion: o.pricingVersion,
    requests: 1, inputTokens: o.usage.inputTokens, cachedInputTokens: o.usage.cachedInputTokens, outputTokens: o.usage.outputTokens,
    estimatedRequests: o.estimated ? 1 : 0, costMicroCents: o.cost,
  };
}

function recordConversation(d: AccountingDeps, o: Outcome): void {
  if (!o.proxy.logConversations || !o.call.accounted) return;
  // The spec's log holds the full prompt and completion; the prompt is bounded by the request body limit, the
  // completion by what the meter extracted (the owner's LLM body cap bounds that parse).
  d.writer.addLog({
    id: randomUUID(), llmId: o.proxy.id, credentialId: o.credentialId, tsMs: o.c.startMs, model: o.model, status: o.c.status,
    streamed: o.call.stream, inputTokens: o.usage.inputTokens, cachedInputTokens: o.usage.cachedInputTokens,
    outputTokens: o.usage.outputTokens, costMicroCents: o.cost, pricingVersion: o.pricingVersion,
    prompt: o.call.body(), completion: o.text,
    requestSummary: summarize(o.call.lastUserText()), responseSummary: summarize(o.text),
  });
}

/** The request's side of its outcome event: the answer's status, the endpoint, and where model_route sent it. */
function requestDetails(call: LlmCall, status: number): RequestDetails {
  const routed = call.routedBy !== undefined;
  return { status, endpoint: call.label, requested_model: routed ? call.requestedModel : undefined, routed_by: call.routedBy };
}

function detailsOf(o: Outcome, reason: string | undefined): Record<string, unknown> {
  return outcomeDetails({
    reason, request: requestDetails(o.call, o.c.status), streamed: o.call.stream, aborted: o.c.aborted || undefined,
    charged: { usage: o.usage, costMicro: o.cost, pricingVersion: o.call.accounted ? o.pricingVersion : undefined, estimated: o.estimated },
    upstreamError: o.c.metered?.error,
  });
}

/** The request a streamed answer belongs to (the handler passes its forwarding state as is). */
export interface LiveSource {
  x: Exchange;
  call: LlmCall;
  hold: BudgetHold | undefined;
  startMs: number;
}

/**
 * How far a streamed answer has got, for its checkpoint record: what was delivered so far, priced with the table in
 * force when the request started, with everything its outcome event and budget charges need.
 */
export function liveRecord({ x, call, hold, startMs }: LiveSource, meter: ResponseMeter, status: number): () => StreamRecord {
  const proxy = x.proxy as LlmProxyConfig;
  const model = call.model ?? '';
  const base = {
    userId: proxy.userId, llmId: proxy.id, credentialId: x.identity?.credentialId ?? '', clientIp: x.clientIp, model, requestedModel: x.facts.model, startMs,
    // The hold as admitted (settling empties it, and a record may be serialised after that).
    hold: hold ? { estimateMicro: hold.estimateMicro, entries: hold.entries.map((e) => ({ ...e })) } : undefined,
    details: requestDetails(call, status),
  };
  return () => {
    const { usage, estimated } = deliveredUsage(meter, call.bodyBytes);
    const priced = priceUsage(proxy.provider, model, usage, startMs);
    return { ...base, usage, estimated, costMicro: priced.costMicroCents, pricingVersion: priced.pricingVersion };
  };
}

export interface AccountTarget {
  x: Exchange;
  call: LlmCall;
  hold: BudgetHold | undefined;
  completionHooks: readonly LlmRuleHandler[];
  /** A streamed answer whose progress was being recorded (live-streams.ts). */
  live?: LiveStream;
}

export async function accountCompleted(d: AccountingDeps, t: AccountTarget, c: Completed): Promise<void> {
  const { x } = t;
  // No record of the stream is taken from here on; if one was, the end below deletes it in the same transaction.
  const checkpointed = t.live?.end() ?? false;
  const o = outcomeOf(x, t.call, c);
  const charges: SpendCharge[] = [];
  const durable = checkpointed ? (ch: SpendCharge) => { charges.push(ch); } : undefined;
  try {
    await Promise.all([t.hold ? d.ledger.settle(t.hold, o.cost, x.s.clock.nowMs(), durable) : undefined, runSettlers(t.call, o.usage.inputTokens + o.usage.outputTokens)]);
  } catch (err) {
    x.s.log.warn('LLM budget or token-rate reconciliation failed', { err, proxy: o.proxy.id });
  }
  const usage = usageRow(o);
  recordConversation(d, o);
  runCompletionHooks(t, o.text);
  const event = outcomeEvent(o, c);
  if (!checkpointed || !t.live) {
    if (usage) d.writer.addUsage(usage);
    emitFor(x, event);
    return;
  }
  x.s.metrics?.event('llm', event.type, event.details?.reason);
  d.writer.addStreamEnd({ checkpointId: t.live.id, usage, charges, event: auditEventFor(x, event) });
}

/** Rules that read the generated text (response-phase prompt_guard), when there is any. */
function runCompletionHooks(t: AccountTarget, text: string | undefined): void {
  if (text) for (const h of t.completionHooks) h.onCompletion?.(t.x, text);
}

/**
 * An upstream that broke off, went silent or answered 200 with a body that is not JSON fails the request: its one
 * outcome event is an error, still carrying what was charged.
 */
function outcomeEvent(o: Outcome, c: Completed): EventSpec {
  const fault = c.aborted === 'upstream_timeout' || c.aborted === 'upstream_broken' ? c.aborted : c.metered?.malformed ? 'upstream_invalid_response' : undefined;
  return { type: fault ? 'error' : 'allow', details: detailsOf(o, fault) };
}
