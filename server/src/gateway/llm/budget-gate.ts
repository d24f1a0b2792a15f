// Budget admission of an LLM request, after the access rules and before the upstream call. The proxy's budget and
// the caller's per-key budget are both checked; any hard cap that is used up refuses the request with 402 (so the
// stricter of the two always wins). Caps without hardBlock let the request through, flagged by the response header
// `x-tollgate-budget-exceeded` (`proxy`, `key` or `proxy,key`) and a `budget_exceeded` event; hard refusals carry
// the same header and event (blocked: true) and their outcome event is `deny`.
import type { LlmProxyConfig } from '../../snapshot/snapshot.ts';
import type { BudgetHold, BudgetLedger, ScopeBudget, ScopeVerdict } from '../../budgets/ledger.ts';
import { microToCents, priceUsage } from '../../pricing/cost.ts';
import { rollsOverAt } from '../../budgets/windows.ts';
import { emitFor, type Exchange, type Verdict } from '../pipeline/index.ts';
import type { LlmCall } from './call.ts';
import { LlmMsg } from './authorize.ts';

export const BUDGET_HEADER = 'x-tollgate-budget-exceeded';
export const BUDGET_EVENT = 'budget_exceeded';

export interface BudgetGate {
  verdict: Verdict;
  hold: BudgetHold | undefined;
  /** Headers for the client's response (soft overruns). */
  headers: Record<string, string>;
}

export function budgetScopes(proxy: LlmProxyConfig, credentialId: string | undefined): ScopeBudget[] {
  const scopes: ScopeBudget[] = [];
  if (proxy.budget) scopes.push({ llmId: proxy.id, scope: 'proxy', budget: proxy.budget });
  const kb = credentialId ? proxy.keyBudgets[credentialId] : undefined;
  if (kb && credentialId) scopes.push({ llmId: proxy.id, scope: credentialId, budget: kb });
  return scopes;
}

const scopeName = (v: ScopeVerdict) => (v.scope.scope === 'proxy' ? 'proxy' : 'key');

function eventFor(x: Exchange, v: ScopeVerdict, blocked: boolean): void {
  emitFor(x, {
    type: BUDGET_EVENT,
    details: {
      scope: scopeName(v), blocked, hard_block: v.scope.budget.hardBlock, period: v.scope.budget.period, window: v.window.tag,
      rolls_over_at: rollsOverAt(v.window), cap_usd: v.scope.budget.capUsd, spent_cents: microToCents(v.spentMicro),
      ...(v.scope.scope !== 'proxy' ? { credential_id: v.scope.scope } : {}),
    },
  });
}

export async function admitBudget(ledger: BudgetLedger, x: Exchange, call: LlmCall, nowMs: number): Promise<BudgetGate> {
  const proxy = x.proxy as LlmProxyConfig;
  const scopes = budgetScopes(proxy, x.identity?.credentialId);
  if (!scopes.length || !call.accounted) return { verdict: { kind: 'continue' }, hold: undefined, headers: {} };
  const est = call.estimateTokens();
  const estimate = priceUsage(proxy.provider, call.model ?? '', { inputTokens: est.inputTokens, cachedInputTokens: 0, outputTokens: est.outputTokens }, nowMs).costMicroCents;
  const a = await ledger.admit(scopes, estimate, nowMs);
  if (a.blocked) {
    eventFor(x, a.blocked, true);
    x.s.metrics?.budgetBlocked(scopeName(a.blocked));
    const key = scopeName(a.blocked) === 'key';
    return {
      verdict: {
        kind: 'deny', status: 402, message: key ? LlmMsg.budgetKey : LlmMsg.budgetProxy, headers: { [BUDGET_HEADER]: scopeName(a.blocked) },
        event: { type: 'deny', details: { reason: 'budget_exceeded', scope: scopeName(a.blocked), window: a.blocked.window.tag } },
      },
      hold: undefined,
      headers: {},
    };
  }
  for (const v of a.overSoft) eventFor(x, v, false);
  const headers: Record<string, string> = a.overSoft.length ? { [BUDGET_HEADER]: a.overSoft.map(scopeName).join(',') } : {};
  return { verdict: { kind: 'continue' }, hold: a.hold, headers };
}
