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
 * Adds a batch of charges. Charges of deleted proxies are dropped (the join), and charges made before a window's last
 * reset are ignored (the reset_at filter).
 *
 * A flush holds hundreds of charges to a handful of windows, so they are summed here first and the statement gets one
 * row per window with the time of its first and last charge: sending every charge cost the embedded database 8–9 µs
 * per completion (docs/performance.md, "Fewer, larger statements"). Only a window reset between its first and
 * last charge of the batch needs the charges one by one; the statement names those windows and they go again, whole.
 */
export async function applyCharges(q: Queryable, charges: readonly SpendCharge[]): Promise<void> {
  if (!charges.length) return;
  const windows = new Map<string, WindowSum>();
  for (const c of charges) {
    const key = windowKey(c.llmId, c.scope, c.windowTag);
    const micro = Math.round(c.microCents);
    const atMs = Math.round(c.atMs);
    const w = windows.get(key);
    if (!w) windows.set(key, { llmId: c.llmId, scope: c.scope, windowTag: c.windowTag, micro, firstMs: atMs, lastMs: atMs });
    else {
      w.micro += micro;
      if (atMs < w.firstMs) w.firstMs = atMs;
      if (atMs > w.lastMs) w.lastMs = atMs;
    }
  }
  const sums = [...windows.values()];
  const split = await q.query<{ llm_id: string; scope: string; window_tag: string }>(
    `WITH s AS (
       SELECT s.llm_id, s.scope, s.window_tag, SUM(s.micro)::bigint AS micro, MIN(s.first_ms) AS first_ms, MAX(s.last_ms) AS last_ms, w.reset_at_ms
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[]) AS s(llm_id, scope, window_tag, micro, first_ms, last_ms)
         JOIN llm_proxies p ON p.id = s.llm_id
         LEFT JOIN llm_spend_windows w ON w.llm_id = s.llm_id AND w.scope = s.scope AND w.window_tag = s.window_tag
        GROUP BY s.llm_id, s.scope, s.window_tag, w.reset_at_ms),
     added AS (
       INSERT INTO llm_spend_windows (llm_id, scope, window_tag, spent_micro_cents, updated_at)
       SELECT llm_id, scope, window_tag, micro, last_ms / 1000 FROM s WHERE reset_at_ms IS NULL OR first_ms >= reset_at_ms
       ON CONFLICT (llm_id, scope, window_tag) DO UPDATE
         SET spent_micro_cents = llm_spend_windows.spent_micro_cents + EXCLUDED.spent_micro_cents, updated_at = EXCLUDED.updated_at)
     SELECT llm_id, scope, window_tag FROM s WHERE first_ms < reset_at_ms AND reset_at_ms <= last_ms`,
    [sums.map((w) => w.llmId), sums.map((w) => w.scope), sums.map((w) => w.windowTag), sums.map((w) => w.micro),
      sums.map((w) => w.firstMs), sums.map((w) => w.lastMs)]);
  if (!split.length) return;
  const reset = new Set(split.map((r) => windowKey(r.llm_id, r.scope, r.window_tag)));
  await applyEachCharge(q, charges.filter((c) => reset.has(windowKey(c.llmId, c.scope, c.windowTag))));
}

/** One window's key, for the charges and for the windows the statement names: PostgreSQL writes a uuid in lower case. */
function windowKey(llmId: string, scope: string, windowTag: string): string {
  return `${llmId.toLowerCase()}|${scope}|${windowTag}`;
}

interface WindowSum { llmId: string; scope: string; windowTag: string; micro: number; firstMs: number; lastMs: number }

/** The charges one by one: only those made at or after their window's last reset count. */
async function applyEachCharge(q: Queryable, charges: readonly SpendCharge[]): Promise<void> {
  await q.query(
    `INSERT INTO llm_spend_windows (llm_id, scope, window_tag, spent_micro_cents, updated_at)
     SELECT c.llm_id, c.scope, c.window_tag, SUM(c.micro)::bigint, MAX(c.at_ms) / 1000
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS c(llm_id, scope, window_tag, micro, at_ms)
       JOIN llm_proxies p ON p.id = c.llm_id
       JOIN llm_spend_windows w ON w.llm_id = c.llm_id AND w.scope = c.scope AND w.window_tag = c.window_tag
      WHERE c.at_ms >= w.reset_at_ms
      GROUP BY c.llm_id, c.scope, c.window_tag
     ON CONFLICT (llm_id, scope, window_tag) DO UPDATE
       SET spent_micro_cents = llm_spend_windows.spent_micro_cents + EXCLUDED.spent_micro_cents, updated_at = EXCLUDED.updated_at`,
    [charges.map((c) => c.llmId), charges.map((c) => c.scope), charges.map((c) => c.windowTag),
      charges.map((c) => Math.round(c.microCents)), charges.map((c) => Math.round(c.atMs))]);
}
