// Per-key budget configuration of an LLM proxy (spec "LLM usage and budget": GET /keys, PUT and DELETE
// /keys/:credId/budget). The caps live in key_budgets; the gateway enforces them from its snapshot, so every write
// bumps the config version. Usage and reset routes of a key belong to the usage module.
import { bumpConfigVersion } from '../../snapshot/changes.ts';
import type { BudgetConfig } from '../../snapshot/snapshot.ts';
import { maskKey } from '../../crypto/tokens.ts';
import type { Queryable } from '../../db/db.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import type { AuthedContext, Router } from '../../http/router.ts';
import { parseOr400 } from '../../http/validate.ts';
import { isUuid } from '../../proxies/ownership.ts';
import { budgetSchema } from '@tollgate/contract';
import { getOwnedLlm } from '../../llm-admin/llm-proxy-store.ts';
import { unixNow, type Services } from '../../services.ts';

interface KeyRow {
  [k: string]: unknown;
  id: string;
  key_prefix: string;
  key_hash: string;
  tags: string[];
  created_at: number;
  period: BudgetConfig['period'] | null;
  cap_usd: number | null;
  hard_block: boolean | null;
}

/** One entry of GET /api/llm/:id/keys (field names are ours: docs/llm-proxies.md). */
export interface KeyBudgetEntry {
  credentialId: string;
  name: string | null;
  key: string;
  models: string[];
  budget: BudgetConfig | null;
  createdAt: number;
  links: { budget: string; budgetReset: string; usageDaily: string; usageHistory: string };
}

const KEY_COLUMNS = `c.id, c.key_prefix, c.key_hash, c.tags, c.created_at, b.period, b.cap_usd, b.hard_block`;

function toEntry(llmId: string, r: KeyRow): KeyBudgetEntry {
  const base = `/api/llm/${llmId}/keys/${r.id}`;
  const modelPrefix = `llm:${llmId}:model:`;
  return {
    credentialId: r.id,
    name: r.tags.find((t) => t.startsWith('name:'))?.slice(5) ?? null,
    key: maskKey(r.key_prefix, r.key_hash),
    models: r.tags.filter((t) => t.startsWith(modelPrefix)).map((t) => t.slice(modelPrefix.length)),
    budget: r.period === null ? null : { period: r.period, capUsd: Number(r.cap_usd), hardBlock: !!r.hard_block },
    createdAt: r.created_at,
    links: { budget: `${base}/budget`, budgetReset: `${base}/budget/reset`, usageDaily: `${base}/usage/daily`, usageHistory: `${base}/usage/history` },
  };
}

/** The caller's client keys with a tag for this proxy or a cap on it (the PAT never appears). */
async function listKeys(q: Queryable, consumerId: string, llmId: string): Promise<KeyRow[]> {
  return q.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM credentials c LEFT JOIN key_budgets b ON b.credential_id = c.id AND b.llm_id = $2
      WHERE c.consumer_id = $1 AND NOT c.is_pat
        AND (b.llm_id IS NOT NULL OR EXISTS (SELECT 1 FROM unnest(c.tags) AS t WHERE left(t, length($3)) = $3))
      ORDER BY c.created_at, c.id`,
    [consumerId, llmId, `llm:${llmId}:`],
  );
}

/** The caller's client key (never the PAT) with its cap on this proxy, or 404 `Key not found`. */
interface KeyRef {
  consumerId: string;
  llmId: string;
  credId: string;
}

async function requireKey(q: Queryable, { consumerId, llmId, credId }: KeyRef, lock = false): Promise<KeyRow> {
  if (!isUuid(credId)) throw new HttpError(404, Msg.keyNotFound);
  const rows = await q.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM credentials c LEFT JOIN key_budgets b ON b.credential_id = c.id AND b.llm_id = $3
      WHERE c.id = $1 AND c.consumer_id = $2 AND NOT c.is_pat${lock ? ' FOR UPDATE OF c' : ''}`,
    [credId, consumerId, llmId],
  );
  if (!rows[0]) throw new HttpError(404, Msg.keyNotFound);
  return rows[0];
}

async function getBudget(s: Services, ctx: AuthedContext) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const row = await requireKey(s.db, { consumerId: ctx.auth.consumerId, llmId: llm.id, credId: ctx.params.credId! });
  // The same keys as the listing: a tag for this proxy or a cap on it.
  const listed = row.period !== null || row.tags.some((t) => t.startsWith(`llm:${llm.id}:`));
  if (!listed) throw new HttpError(404, Msg.keyNotFound);
  return toEntry(llm.id, row);
}

async function putBudget(s: Services, ctx: AuthedContext) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const ref = { consumerId: ctx.auth.consumerId, llmId: llm.id, credId: ctx.params.credId! };
  await requireKey(s.db, ref);
  const budget = parseOr400(budgetSchema, await ctx.json());
  const { row, version } = await s.db.tx(async (q) => {
    // Lock both parents so a concurrent delete of the proxy or the key is a clean 404, not a foreign-key error.
    await getOwnedLlm(q, ctx.auth.userId, llm.id, true);
    await requireKey(q, ref, true);
    await q.query(
      `INSERT INTO key_budgets (llm_id, credential_id, period, cap_usd, hard_block, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (llm_id, credential_id) DO UPDATE SET period = EXCLUDED.period, cap_usd = EXCLUDED.cap_usd, hard_block = EXCLUDED.hard_block`,
      [llm.id, ctx.params.credId, budget.period, budget.capUsd, budget.hardBlock, unixNow(s.clock)],
    );
    const v = await bumpConfigVersion(q);
    return { row: await requireKey(q, ref), version: v };
  });
  await s.configChanged(version);
  return toEntry(llm.id, row);
}

async function deleteBudget(s: Services, ctx: AuthedContext) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const key = await requireKey(s.db, { consumerId: ctx.auth.consumerId, llmId: llm.id, credId: ctx.params.credId! });
  const version = await s.db.tx(async (q) => {
    const gone = await q.query('DELETE FROM key_budgets WHERE llm_id = $1 AND credential_id = $2 RETURNING llm_id', [llm.id, key.id]);
    return gone.length ? bumpConfigVersion(q) : 0;
  });
  if (version) await s.configChanged(version);
  return { deleted: version > 0 };
}

export function registerKeyBudgetsRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/llm/:id/keys', 'user', async (ctx) => {
    const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
    return { keys: (await listKeys(s.db, ctx.auth.consumerId, llm.id)).map((row) => toEntry(llm.id, row)) };
  }, { summary: 'The caller\'s keys on this LLM proxy with their per-key budget and usage links' });
  r.add('GET', '/api/llm/:id/keys/:credId/budget', 'user', (ctx) => getBudget(s, ctx),
    { summary: 'One key of this LLM proxy as GET /api/llm/:id/keys lists it (404 for a key with no access and no cap)' });
  r.add('PUT', '/api/llm/:id/keys/:credId/budget', 'user', (ctx) => putBudget(s, ctx),
    { summary: 'Set (create or replace) the per-key budget cap' });
  r.add('DELETE', '/api/llm/:id/keys/:credId/budget', 'user', (ctx) => deleteBudget(s, ctx),
    { summary: 'Remove the per-key cap; the proxy cap still applies' });
}
