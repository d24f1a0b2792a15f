// Per-user quotas (spec "Limits"): how many MCP servers, LLM proxies, synthetic resources and client keys a user may
// have. The limit is the consumer's tag (formats and defaults: contract/src/tags.ts), else the default. The check runs
// inside the creating transaction: locking the consumer row first serialises concurrent creates of one user, so two
// requests racing for the last slot cannot both win.
import type { Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import {
  DEFAULT_API_KEY_LIMIT, DEFAULT_LLM_LIMIT, DEFAULT_MCP_LIMIT, DEFAULT_RESOURCE_LIMIT, QUOTA_TAGS, tagLimit,
} from '@tollgate/contract';

export type QuotaKind = 'mcp' | 'llm' | 'resource' | 'apiKey';

interface Quota {
  /** The message's subject: `<label> limit reached (N/M). …`. */
  label: string;
  tag: string;
  fallback: number;
  /** Locks the consumer row and reads its tags; $1 is the owner id the quota is counted by. */
  lockSql: string;
  /** The current count, `n`; $1 as above. */
  countSql: string;
}

const LOCK_BY_USER = 'SELECT tags FROM consumers WHERE user_id = $1 FOR UPDATE';

const QUOTAS: Record<QuotaKind, Quota> = {
  mcp: {
    label: 'MCP', tag: QUOTA_TAGS.mcpLimit, fallback: DEFAULT_MCP_LIMIT,
    lockSql: LOCK_BY_USER,
    countSql: 'SELECT count(*)::int AS n FROM mcp_servers WHERE user_id = $1',
  },
  // The same lock as the MCP quota: every per-user quota serialises on the consumer row.
  llm: {
    label: 'LLM proxy', tag: QUOTA_TAGS.llmLimit, fallback: DEFAULT_LLM_LIMIT,
    lockSql: LOCK_BY_USER,
    countSql: 'SELECT count(*)::int AS n FROM llm_proxies WHERE user_id = $1',
  },
  // The resource repository is per user: the quota counts resources across all of the user's MCP servers.
  resource: {
    label: 'Resource', tag: QUOTA_TAGS.resourceLimit, fallback: DEFAULT_RESOURCE_LIMIT,
    lockSql: LOCK_BY_USER,
    countSql: 'SELECT count(*)::int AS n FROM mcp_resources r JOIN mcp_servers m ON m.id = r.mcp_id WHERE m.user_id = $1',
  },
  // Client keys are counted by consumer; the PAT is not counted.
  apiKey: {
    label: 'API key', tag: QUOTA_TAGS.apiKeyLimit, fallback: DEFAULT_API_KEY_LIMIT,
    lockSql: 'SELECT tags FROM consumers WHERE id = $1 FOR UPDATE',
    countSql: 'SELECT count(*) AS n FROM credentials WHERE consumer_id = $1 AND NOT is_pat',
  },
};

export function quotaLimit(kind: QuotaKind, consumerTags: readonly string[]): number {
  const quota = QUOTAS[kind];
  return tagLimit(consumerTags, quota.tag) ?? quota.fallback;
}

/** The spec's wording, with the current count and the limit. */
export function quotaMessage(kind: QuotaKind, count: number, limit: number): string {
  return `${QUOTAS[kind].label} limit reached (${count}/${limit}). Contact an administrator to raise your quota.`;
}

/** Throws the spec's 403 when one more would exceed the limit. */
export function checkQuota(kind: QuotaKind, currentCount: number, consumerTags: readonly string[]): void {
  const limit = quotaLimit(kind, consumerTags);
  if (currentCount >= limit) throw new HttpError(403, quotaMessage(kind, currentCount, limit));
}

async function assertQuota(q: Queryable, kind: QuotaKind, ownerId: string): Promise<void> {
  const quota = QUOTAS[kind];
  const tags = (await q.query<{ tags: string[] }>(quota.lockSql, [ownerId]))[0]?.tags ?? [];
  const [row] = await q.query<{ n: number }>(quota.countSql, [ownerId]);
  checkQuota(kind, Number(row?.n ?? 0), tags);
}

/** One more MCP server for this user, or the spec's 403. */
export function assertMcpQuota(q: Queryable, userId: string): Promise<void> {
  return assertQuota(q, 'mcp', userId);
}

/** One more LLM proxy for this user, or a 403 worded like the spec's other quota messages. */
export function assertLlmQuota(q: Queryable, userId: string): Promise<void> {
  return assertQuota(q, 'llm', userId);
}

/** One more synthetic resource for this user (across all of their MCP servers), or the spec's 403. */
export function assertResourceQuota(q: Queryable, userId: string): Promise<void> {
  return assertQuota(q, 'resource', userId);
}

/** One more client key for this consumer, or the spec's 403. */
export function assertApiKeyQuota(q: Queryable, consumerId: string): Promise<void> {
  return assertQuota(q, 'apiKey', consumerId);
}
