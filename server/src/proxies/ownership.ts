// Tenant isolation: every lookup by id is scoped to the caller, and a malformed id is just as "not found" as
// another user's id (spec: the caller never learns that another user's object exists).
import type { Queryable, Row } from '../db/db.ts';
import { HttpError, Msg } from '../http/errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID.test(s);
}

export async function findOwned<T extends Row>(q: Queryable, table: 'mcp_servers' | 'llm_proxies', userId: string, id: string): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const rows = await q.query<T>(`SELECT * FROM ${table} WHERE id = $1 AND user_id = $2`, [id, userId]);
  return rows[0];
}

export async function requireMcp<T extends Row = Row>(q: Queryable, userId: string, id: string): Promise<T> {
  const r = await findOwned<T>(q, 'mcp_servers', userId, id);
  if (!r) throw new HttpError(404, Msg.mcpNotFound);
  return r;
}

export async function requireLlm<T extends Row = Row>(q: Queryable, userId: string, id: string): Promise<T> {
  const r = await findOwned<T>(q, 'llm_proxies', userId, id);
  if (!r) throw new HttpError(404, Msg.llmNotFound);
  return r;
}
