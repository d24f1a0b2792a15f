// LLM usage and budget windows (spec "LLM usage and budget"): monthly and daily series with per-key breakdown,
// history deletes, budget resets, and the per-key daily series, history and reset. Usage rows are written by the
// gateway in batches (a request shows up here within about a quarter of a second); budget windows come from the
// shared state store the gateways enforce from.
import type { BudgetConfig } from '../../snapshot/snapshot.ts';
import type { Queryable } from '../../db/db.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import type { AuthedContext, Router } from '../../http/router.ts';
import { isUuid } from '../../proxies/ownership.ts';
import { getOwnedLlm } from '../../llm-admin/llm-proxy-store.ts';
import { resetSpendWindow, spendWindow } from '../../budgets/status.ts';
import { PRICING_TABLES } from '../../pricing/tables.ts';
import { tableAt } from '../../pricing/cost.ts';
import { deleteUsage, usageRows, type UsageRow } from '../../usage/rows.ts';
import { dailySeries, firstDayOf, firstMonthDayOf, monthlySeries, rowView, sumRows } from '../../usage/series.ts';
import type { Services } from '../../services.ts';

const MAX_DAYS = 366;
const MAX_MONTHS = 60;

/** A query parameter's default and accepted range, kept together so routes declare them once. */
export interface IntParamRange { dflt: number; min: number; max: number }

const MONTHS_RANGE: IntParamRange = { dflt: 12, min: 1, max: MAX_MONTHS };
const DAYS_RANGE: IntParamRange = { dflt: 14, min: 1, max: MAX_DAYS };

export function intParam(q: URLSearchParams, name: string, { dflt, min, max }: IntParamRange): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new HttpError(400, `${name}: must be an integer between ${min} and ${max}`);
  return Number(raw);
}

/** `all=true` or `before=<YYYYMMDD>` (a real calendar day); anything else is the spec's 400. */
export function historyCutoff(q: URLSearchParams): number | 'all' {
  const before = q.get('before');
  if (before !== null) {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(before);
    const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
    if (!m || !d || d.getUTCDate() !== Number(m[3]) || d.getUTCMonth() !== Number(m[2]) - 1) throw new HttpError(400, Msg.badBefore);
    return Number(before);
  }
  if (q.get('all') === 'true') return 'all';
  throw new HttpError(400, Msg.badBefore);
}

interface KeyRow {
  [k: string]: unknown;
  id: string;
  tags: string[];
  period: BudgetConfig['period'] | null;
  cap_usd: number | null;
  hard_block: boolean | null;
}

/** The caller's client key (never the PAT) with its cap on this proxy, or 404 `Key not found`. */
async function ownedKey(q: Queryable, consumerId: string, llmId: string, credId: string): Promise<{ id: string; budget: BudgetConfig | null }> {
  if (!isUuid(credId)) throw new HttpError(404, Msg.keyNotFound);
  const rows = await q.query<KeyRow>(
    `SELECT c.id, c.tags, b.period, b.cap_usd, b.hard_block FROM credentials c
       LEFT JOIN key_budgets b ON b.credential_id = c.id AND b.llm_id = $3
      WHERE c.id = $1 AND c.consumer_id = $2 AND NOT c.is_pat`, [credId, consumerId, llmId]);
  const r = rows[0];
  if (!r) throw new HttpError(404, Msg.keyNotFound);
  return { id: r.id, budget: r.period === null ? null : { period: r.period, capUsd: Number(r.cap_usd), hardBlock: !!r.hard_block } };
}

async function keyNames(q: Queryable, ids: string[]): Promise<Map<string, string | null>> {
  const uuids = ids.filter(isUuid);
  if (!uuids.length) return new Map();
  const rows = await q.query<{ id: string; tags: string[] }>('SELECT id, tags FROM credentials WHERE id = ANY($1::uuid[])', [uuids]);
  return new Map(rows.map((r) => [r.id, r.tags.find((t) => t.startsWith('name:'))?.slice(5) ?? null]));
}

async function byKey(q: Queryable, rows: readonly UsageRow[], fromDay: number) {
  const groups = new Map<string, UsageRow[]>();
  for (const r of rows) {
    if (r.day < fromDay) continue;
    const list = groups.get(r.credential_id);
    if (list) list.push(r);
    else groups.set(r.credential_id, [r]);
  }
  const names = await keyNames(q, [...groups.keys()]);
  return [...groups].map(([credentialId, list]) => ({
    credentialId: credentialId || null, name: names.get(credentialId) ?? null, ...sumRows(list),
  })).sort((a, b) => b.costCents - a.costCents);
}

async function monthly(s: Services, ctx: AuthedContext) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const months = intParam(ctx.query, 'months', MONTHS_RANGE);
  const nowMs = s.clock.nowMs();
  const rows = await usageRows(s.db, llm.id, firstMonthDayOf(nowMs, months));
  return {
    llmId: llm.id, months,
    series: monthlySeries(rows, nowMs, months),
    byKey: await byKey(s.db, rows, firstMonthDayOf(nowMs, 1)),
    totals: sumRows(rows),
    currentPricingVersion: tableAt(nowMs, PRICING_TABLES).version,
  };
}

async function daily(s: Services, ctx: AuthedContext, credId?: string) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const key = credId !== undefined ? await ownedKey(s.db, ctx.auth.consumerId, llm.id, credId) : undefined;
  const days = intParam(ctx.query, 'days', DAYS_RANGE);
  const nowMs = s.clock.nowMs();
  const rows = await usageRows(s.db, llm.id, firstDayOf(nowMs, days), key?.id);
  const budget = key ? key.budget : llm.budget;
  return {
    llmId: llm.id, ...(key ? { credentialId: key.id } : {}), days,
    series: dailySeries(rows, nowMs, days),
    rows: rows.map(rowView),
    totals: sumRows(rows),
    budget,
    window: await spendWindow(s, llm.id, key ? key.id : 'proxy', budget),
  };
}

async function deleteHistory(s: Services, ctx: AuthedContext, credId?: string) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const key = credId !== undefined ? await ownedKey(s.db, ctx.auth.consumerId, llm.id, credId) : undefined;
  const cutoff = historyCutoff(ctx.query);
  return { deleted: await deleteUsage(s.db, llm.id, cutoff, key?.id) };
}

async function resetBudget(s: Services, ctx: AuthedContext, credId?: string) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  if (credId !== undefined) {
    const key = await ownedKey(s.db, ctx.auth.consumerId, llm.id, credId);
    await resetSpendWindow(s, llm.id, key.id, key.budget);
  } else {
    await resetSpendWindow(s, llm.id, 'proxy', llm.budget);
  }
  return { reset: true };
}

export function registerUsageRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/llm/:id/usage', 'user', (ctx) => monthly(s, ctx),
    { summary: 'Monthly usage series (query months, default 12) and the per-key breakdown of the current month' });
  r.add('GET', '/api/llm/:id/usage/daily', 'user', (ctx) => daily(s, ctx),
    { summary: 'Daily usage series (query days, default 14), the stored usage rows, the budget and its current spend window' });
  r.add('DELETE', '/api/llm/:id/usage/history', 'user', (ctx) => deleteHistory(s, ctx),
    { summary: 'Delete usage history: all=true, or before=<YYYYMMDD>; budget windows are not touched' });
  r.add('POST', '/api/llm/:id/budget/reset', 'user', (ctx) => resetBudget(s, ctx),
    { summary: 'Zero the current spend window of the proxy budget' });
  r.add('POST', '/api/llm/:id/keys/:credId/budget/reset', 'user', (ctx) => resetBudget(s, ctx, ctx.params.credId!),
    { summary: 'Zero the current spend window of a per-key budget' });
  r.add('GET', '/api/llm/:id/keys/:credId/usage/daily', 'user', (ctx) => daily(s, ctx, ctx.params.credId!),
    { summary: 'Daily usage series of one key on this proxy, its budget and spend window' });
  r.add('DELETE', '/api/llm/:id/keys/:credId/usage/history', 'user', (ctx) => deleteHistory(s, ctx, ctx.params.credId!),
    { summary: 'Delete one key\'s usage history on this proxy: all=true, or before=<YYYYMMDD>' });
}
