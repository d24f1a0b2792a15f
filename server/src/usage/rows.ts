// LLM usage history: one row per (proxy, UTC day, key, model, pricing version), upserted in batches by the gateway
// and read by the usage endpoints. Money in micro-cents; the API converts to cents.
import { storableText } from '../db/text.ts';
import type { Queryable } from '../db/db.ts';

export interface UsageIncrement {
  llmId: string;
  /** UTC day, YYYYMMDD. */
  day: number;
  /** '' when the caller was not a client key (JWT mode). */
  credentialId: string;
  model: string;
  pricingVersion: string;
  requests: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Requests whose tokens were estimated (characters / 4) instead of read from the provider's usage. */
  estimatedRequests: number;
  costMicroCents: number;
}

export function usageKey(u: Pick<UsageIncrement, 'llmId' | 'day' | 'credentialId' | 'model' | 'pricingVersion'>): string {
  return `${u.llmId}|${u.day}|${u.credentialId}|${u.model}|${u.pricingVersion}`;
}

/** Adds `u` into `into` (same key: the counts are summed). */
export function addUsage(into: Map<string, UsageIncrement>, u: UsageIncrement): void {
  const cur = into.get(usageKey(u));
  if (!cur) {
    into.set(usageKey(u), { ...u });
    return;
  }
  cur.requests += u.requests;
  cur.inputTokens += u.inputTokens;
  cur.cachedInputTokens += u.cachedInputTokens;
  cur.outputTokens += u.outputTokens;
  cur.estimatedRequests += u.estimatedRequests;
  cur.costMicroCents += u.costMicroCents;
}

/** Adds a batch (one item per key) in one statement; rows of proxies deleted meanwhile are dropped. */
export async function upsertUsage(q: Queryable, items: readonly UsageIncrement[]): Promise<void> {
  if (!items.length) return;
  const col = <K extends keyof UsageIncrement>(k: K) => items.map((i) => i[k]);
  await q.query(
    `INSERT INTO llm_usage_daily (llm_id, day, credential_id, model, pricing_version, requests, input_tokens, cached_input_tokens,
                                  output_tokens, estimated_requests, cost_micro_cents)
     SELECT u.* FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[],
                            $9::bigint[], $10::bigint[], $11::bigint[])
              AS u(llm_id, day, credential_id, model, pricing_version, requests, input_tokens, cached_input_tokens, output_tokens,
                   estimated_requests, cost_micro_cents)
      WHERE EXISTS (SELECT 1 FROM llm_proxies p WHERE p.id = u.llm_id)
     ON CONFLICT (llm_id, day, credential_id, model, pricing_version) DO UPDATE SET
       requests = llm_usage_daily.requests + EXCLUDED.requests,
       input_tokens = llm_usage_daily.input_tokens + EXCLUDED.input_tokens,
       cached_input_tokens = llm_usage_daily.cached_input_tokens + EXCLUDED.cached_input_tokens,
       output_tokens = llm_usage_daily.output_tokens + EXCLUDED.output_tokens,
       estimated_requests = llm_usage_daily.estimated_requests + EXCLUDED.estimated_requests,
       cost_micro_cents = llm_usage_daily.cost_micro_cents + EXCLUDED.cost_micro_cents`,
    [col('llmId'), col('day'), col('credentialId'), items.map((i) => storableText(i.model)), col('pricingVersion'), col('requests'), col('inputTokens'),
      col('cachedInputTokens'), col('outputTokens'), col('estimatedRequests'), items.map((i) => Math.round(i.costMicroCents))],
  );
}

export interface UsageRow {
  [k: string]: unknown;
  day: number;
  credential_id: string;
  model: string;
  pricing_version: string;
  requests: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  estimated_requests: number;
  cost_micro_cents: number;
}

/** Stored rows of a proxy from `fromDay` on (optionally one key), oldest first. */
export async function usageRows(q: Queryable, llmId: string, fromDay: number, credentialId?: string): Promise<UsageRow[]> {
  const byKey = credentialId !== undefined;
  return q.query<UsageRow>(
    `SELECT day, credential_id, model, pricing_version, requests, input_tokens, cached_input_tokens, output_tokens,
            estimated_requests, cost_micro_cents
       FROM llm_usage_daily WHERE llm_id = $1 AND day >= $2 ${byKey ? 'AND credential_id = $3' : ''}
      ORDER BY day, credential_id, model, pricing_version`,
    byKey ? [llmId, fromDay, credentialId] : [llmId, fromDay]);
}

/** Deletes history: everything, or the days strictly before `beforeDay`. Budget windows are separate and untouched. */
export async function deleteUsage(q: Queryable, llmId: string, beforeDay: number | 'all', credentialId?: string): Promise<number> {
  const params: unknown[] = [llmId];
  let where = 'llm_id = $1';
  if (beforeDay !== 'all') {
    params.push(beforeDay);
    where += ` AND day < $${params.length}`;
  }
  if (credentialId !== undefined) {
    params.push(credentialId);
    where += ` AND credential_id = $${params.length}`;
  }
  const rows = await q.query(`DELETE FROM llm_usage_daily WHERE ${where} RETURNING 1`, params);
  return rows.length;
}
