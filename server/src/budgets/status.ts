// Budget windows as the management API shows and resets them (spec "Spend window": {tag, spentCents, rollsOverAt}).
// Reads go through the shared ledger, so the API sees what the gateways enforce (and rebuilds a lost hot window
// from PostgreSQL like a gateway would).
import type { BudgetConfig } from '../snapshot/snapshot.ts';
import type { Services } from '../services.ts';
import { readWindowSpend, resetWindowSpend } from './durable.ts';
import { BudgetLedger } from './ledger.ts';
import { rollsOverAt } from './windows.ts';

export interface SpendWindowView {
  tag: string;
  /** Whole cents charged in the window (rounded). */
  spentCents: number;
  /** Unix seconds of the rollover; 0 for a fixed window, which rolls over only by reset. */
  rollsOverAt: number;
}

function apiLedger(s: Services): BudgetLedger {
  return new BudgetLedger(s.state, (llmId, scope, tag) => readWindowSpend(s.db, llmId, scope, tag), s.log);
}

/** scope: 'proxy' or a credential id. */
export async function spendWindow(s: Services, llmId: string, scope: string, budget: BudgetConfig | null): Promise<SpendWindowView | null> {
  if (!budget) return null;
  const { window, spentMicro } = await apiLedger(s).windowSpent({ llmId, scope, budget }, s.clock.nowMs());
  return { tag: window.tag, spentCents: Math.round(spentMicro / 1_000_000), rollsOverAt: rollsOverAt(window) };
}

/**
 * Zeroes the current window: the durable copy first (so a concurrent rebuild reads zero), then the hot copy. Both
 * stores must answer: with Redis unreachable nothing is changed (503), rather than zeroing only the durable copy.
 */
export async function resetSpendWindow(s: Services, llmId: string, scope: string, budget: BudgetConfig | null): Promise<void> {
  if (!budget) return;
  await s.state.ping();
  const nowMs = s.clock.nowMs();
  const ledger = apiLedger(s);
  const { window } = await ledger.windowSpent({ llmId, scope, budget }, nowMs);
  await resetWindowSpend(s.db, { llmId, scope, windowTag: window.tag }, nowMs);
  await ledger.reset({ llmId, scope, budget }, nowMs);
}
