// The durable copy of budget windows in PostgreSQL. The gateway adds charges in batches (accounting writer); the hot
// copy in the state store is rebuilt from here when it disappears, so a Redis flush never forgets charged spend.
import type { Queryable } from '../db/db.ts';

/** Spend charged to one window of one scope ('proxy' or a credential id). */
export interface SpendCharge {
  llmId: string;
  scope: string;
  windowTag: string;
  microCents: number;
  /** When the gateway charged it; charges older than a reset of the window are not added back. */
  atMs: number;
}

export async function readWindowSpend(q: Queryable, llmId: string, scope: string, windowTag: string): Promise<number> {
  const rows = await q.query<{ spent_micro_cents: number }>(
    'SELECT spent_micro_cents FROM llm_spend_windows WHERE llm_id = $1 AND scope = $2 AND window_tag = $3', [llmId, scope, windowTag]);
  return Number(rows[0]?.spent_micro_cents ?? 0);
}

/** Which spend row a reset targets (its primary key in llm_spend_windows). */
export interface SpendWindowKey { llmId: string; scope: string; windowTag: string }

/** Zeroes a window (POST .../budget/reset) and remembers when, so late-flushed older charges stay out of it. */
export async function resetWindowSpend(q: Queryable, key: SpendWindowKey, nowMs: number): Promise<void> {
  const { llmId, scope, windowTag } = key;
  await q.query(
    `INSERT INTO llm_spend_windows (llm_id, scope, window_tag, spent_micro_cents, reset_at_ms, updated_at)
     VALUES ($1, $2, $3, 0, $4, $5)
     ON CONFLICT (llm_id, scope, window_tag) DO UPDATE SET spent_micro_cents = 0, reset_at_ms = EXCLUDED.reset_at_ms, updated_at = EXCLUDED.updated_at`,
    [llmId, scope, windowTag, nowMs, Math.floor(nowMs / 1000)]);
}

/**
 * Adds a batch of charges in one statement. Charges of deleted proxies are dropped (the join), and charges made
 * before a window's last reset are ignored (the reset_at filter).
 */
export async function applyCharges(q: Queryable, charges: readonly SpendCharge[]): Promise<void> {
  if (!charges.length) return;
  await q.query(
    `INSERT INTO llm_spend_windows (llm_id, scope, window_tag, spent_micro_cents, updated_at)
     SELECT c.llm_id, c.scope, c.window_tag, SUM(c.micro)::bigint, MAX(c.at_ms) / 1000
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS c(llm_id, scope, window_tag, micro, at_ms)
       JOIN llm_proxies p ON p.id = c.llm_id
       LEFT JOIN llm_spend_windows w ON w.llm_id = c.llm_id AND w.scope = c.scope AND w.window_tag = c.window_tag
      WHERE w.reset_at_ms IS NULL OR c.at_ms >= w.reset_at_ms
      GROUP BY c.llm_id, c.scope, c.window_tag
     ON CONFLICT (llm_id, scope, window_tag) DO UPDATE
       SET spent_micro_cents = llm_spend_windows.spent_micro_cents + EXCLUDED.spent_micro_cents, updated_at = EXCLUDED.updated_at`,
    [charges.map((c) => c.llmId), charges.map((c) => c.scope), charges.map((c) => c.windowTag),
      charges.map((c) => Math.round(c.microCents)), charges.map((c) => Math.round(c.atMs))]);
}
