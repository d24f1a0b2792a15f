// Reading LLM proxy rows and shaping them into the API record. Read paths never select provider_key_enc: the
// sealed key cannot leak through a GET because no GET ever has it.
import type { BudgetConfig, InboundAuth } from '../snapshot/snapshot.ts';
import type { Queryable } from '../db/db.ts';
import { HttpError, Msg } from '../http/errors.ts';
import type { Pin } from '../net/upstream-guard.ts';
import { isUuid } from '../proxies/ownership.ts';
import { proxyHost } from '../proxies/gateway-objects.ts';
import type { ProviderId } from '@tollgate/contract';

export interface LlmProxyRow {
  [k: string]: unknown;
  id: string;
  user_id: string;
  name: string;
  provider: ProviderId;
  allowed_models: string[];
  default_model: string | null;
  log_conversations: boolean;
  auth: InboundAuth | null;
  budget: BudgetConfig | null;
  pin: Pin | null;
  created_at: number;
  upstream_url: string | null;
}

/** The spec's LLM proxy record (without `pin`, which only the single-record GET adds). */
export interface LlmProxyRecord {
  id: string;
  name: string;
  provider: ProviderId;
  upstreamUrl: string;
  allowedModels: string[];
  defaultModel: string | null;
  logConversations: boolean;
  auth: InboundAuth | null;
  budget: BudgetConfig | null;
  createdAt: number;
  proxyHost: string;
}

const COLUMNS = `p.id, p.user_id, p.name, p.provider, p.allowed_models, p.default_model, p.log_conversations, p.auth, p.budget,
  p.pin, p.created_at, s.upstream_url`;

export function toRecord(r: LlmProxyRow, proxyDomain: string): LlmProxyRecord {
  return {
    id: r.id,
    name: r.name,
    provider: r.provider,
    upstreamUrl: r.upstream_url ?? '',
    allowedModels: r.allowed_models ?? [],
    defaultModel: r.default_model,
    logConversations: r.log_conversations,
    auth: r.auth,
    budget: r.budget,
    createdAt: r.created_at,
    proxyHost: proxyHost(r.id, proxyDomain),
  };
}

export async function listLlmProxies(q: Queryable, userId: string): Promise<LlmProxyRow[]> {
  return q.query<LlmProxyRow>(
    `SELECT ${COLUMNS} FROM llm_proxies p LEFT JOIN gateway_services s ON s.proxy_id = p.id
      WHERE p.user_id = $1 ORDER BY p.created_at, p.id`,
    [userId],
  );
}

/**
 * The caller's proxy or 404 `LLM proxy not found` (another user's id and a malformed id look the same).
 * `lock` takes a row lock for a read-modify-write in the caller's transaction.
 */
export async function getOwnedLlm(q: Queryable, userId: string, id: string, lock = false): Promise<LlmProxyRow> {
  if (!isUuid(id)) throw new HttpError(404, Msg.llmNotFound);
  const rows = await q.query<LlmProxyRow>(
    `SELECT ${COLUMNS} FROM llm_proxies p LEFT JOIN gateway_services s ON s.proxy_id = p.id
      WHERE p.id = $1 AND p.user_id = $2${lock ? ' FOR UPDATE OF p' : ''}`,
    [id, userId],
  );
  if (!rows[0]) throw new HttpError(404, Msg.llmNotFound);
  return rows[0];
}
