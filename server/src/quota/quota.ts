// Per-user quotas on MCP servers and synthetic resources (spec "Limits"), read from the consumer's tags inside the
// creating transaction. Locking the consumer row serialises concurrent creates of one user, so two requests
// racing for the last slot cannot both win.
import type { Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import { DEFAULT_MCP_LIMIT, DEFAULT_RESOURCE_LIMIT, QUOTA_TAGS, tagLimit } from '@tollgate/contract';

async function lockConsumerTags(q: Queryable, userId: string): Promise<string[]> {
  const rows = await q.query<{ tags: string[] }>('SELECT tags FROM consumers WHERE user_id = $1 FOR UPDATE', [userId]);
  return rows[0]?.tags ?? [];
}

export function mcpLimitMessage(count: number, limit: number): string {
  return `MCP limit reached (${count}/${limit}). Contact an administrator to raise your quota.`;
}

export function resourceLimitMessage(count: number, limit: number): string {
  return `Resource limit reached (${count}/${limit}). Contact an administrator to raise your quota.`;
}

/** Throws the spec's 403 when the user already has as many MCP servers as the quota allows. */
export async function assertMcpQuota(q: Queryable, userId: string): Promise<void> {
  const limit = tagLimit(await lockConsumerTags(q, userId), QUOTA_TAGS.mcpLimit) ?? DEFAULT_MCP_LIMIT;
  const [row] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM mcp_servers WHERE user_id = $1', [userId]);
  const count = Number(row?.n ?? 0);
  if (count >= limit) throw new HttpError(403, mcpLimitMessage(count, limit));
}

/** The resource repository is per user: the quota counts resources across all of the user's MCP servers. */
export async function assertResourceQuota(q: Queryable, userId: string): Promise<void> {
  const limit = tagLimit(await lockConsumerTags(q, userId), QUOTA_TAGS.resourceLimit) ?? DEFAULT_RESOURCE_LIMIT;
  const [row] = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM mcp_resources r JOIN mcp_servers m ON m.id = r.mcp_id WHERE m.user_id = $1', [userId]);
  const count = Number(row?.n ?? 0);
  if (count >= limit) throw new HttpError(403, resourceLimitMessage(count, limit));
}
