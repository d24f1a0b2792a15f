// Turns the structured permission input into grants on proxies the caller owns (spec: "every uuid in the input is
// cross-checked against the caller's owned set"; "each tool must exist in the discovered catalog"). Runs inside
// the key's transaction and share-locks each proxy row, so a proxy cannot be deleted between this check and the
// commit of the key (its delete then waits, and its tag cascade sees the new key). The same lock holds off writes
// of the server's resources and rules, which lock its row for update, so the resource check below stays true.
import type { Queryable } from '../db/db.ts';
import { HttpError, Msg, badRequest } from '../http/errors.ts';
import { getRules } from '../proxies/gateway-objects.ts';
import { isUuid } from '../proxies/ownership.ts';
import type { PermissionInput } from '@tollgate/contract';
import { WILDCARD, type LlmGrant, type McpGrant } from '@tollgate/contract';

type McpInput = PermissionInput['mcpPermissions'][number];
type LlmInput = PermissionInput['llmPermissions'][number];

async function lockOwned(q: Queryable, table: 'mcp_servers' | 'llm_proxies', userId: string, id: string): Promise<{ id: string; tools?: unknown } | undefined> {
  if (!isUuid(id)) return undefined;
  const cols = table === 'mcp_servers' ? 'id, tools' : 'id';
  const rows = await q.query<{ id: string; tools?: unknown }>(`SELECT ${cols} FROM ${table} WHERE id = $1 AND user_id = $2 FOR SHARE`, [id, userId]);
  return rows[0];
}

/** Names in an MCP server's stored catalog (`mcp_servers.tools`, written by tools discovery). */
export function catalogToolNames(tools: unknown): Set<string> {
  const names = new Set<string>();
  if (!Array.isArray(tools)) return names;
  for (const t of tools) {
    const name = (t as { name?: unknown } | null)?.name;
    if (typeof name === 'string') names.add(name);
  }
  return names;
}

/** 400 `tools[N] not found on this MCP server` for the first tool the catalog lacks (`*` needs no catalog). */
export function checkToolsInCatalog(tools: readonly string[], catalog: ReadonlySet<string>): void {
  if (tools.includes(WILDCARD)) return;
  tools.forEach((t, i) => {
    if (!catalog.has(t)) throw badRequest(`tools[${i}] not found on this MCP server`);
  });
}

/**
 * The canonical form of each granted resource id, or 400 `resources[N] not found on this MCP server` for the first
 * one the server does not serve. `served` holds the server's API resources by their uuid (stored in lower case, so a
 * uuid sent in another case is matched and stored in lower case, as the gateway's tag needs) and its `mcp_resource`
 * rules by their `resource_id`, compared exactly. `*` needs neither.
 */
export function checkResourcesServed(resources: readonly string[], served: ReadonlySet<string>): string[] {
  return resources.map((r, i) => {
    if (r === WILDCARD || served.has(r)) return r;
    if (isUuid(r) && served.has(r.toLowerCase())) return r.toLowerCase();
    throw badRequest(`resources[${i}] not found on this MCP server`);
  });
}

/** What a grant on this MCP server may name as a resource (see checkResourcesServed). */
async function servedResourceIds(q: Queryable, mcpId: string): Promise<Set<string>> {
  const served = new Set<string>();
  for (const rule of await getRules(q, mcpId)) if (rule.rule_type === 'mcp_resource') served.add(rule.resource_id);
  for (const { id } of await q.query<{ id: string }>('SELECT id FROM mcp_resources WHERE mcp_id = $1', [mcpId])) served.add(id);
  return served;
}

async function mcpGrant(q: Queryable, userId: string, p: McpInput): Promise<McpGrant> {
  const row = await lockOwned(q, 'mcp_servers', userId, p.id);
  if (!row) throw new HttpError(404, Msg.mcpNotFound);
  checkToolsInCatalog(p.tools, catalogToolNames(row.tools));
  const named = p.resources.some((r) => r !== WILDCARD);
  const resources = named ? checkResourcesServed(p.resources, await servedResourceIds(q, row.id)) : p.resources;
  // The stored id is canonical (lower case), so tags match the gateway's proxy ids whatever case the client sent.
  return { id: row.id, tools: p.tools, resources };
}

async function llmGrant(q: Queryable, userId: string, p: LlmInput): Promise<LlmGrant> {
  const row = await lockOwned(q, 'llm_proxies', userId, p.id);
  if (!row) throw new HttpError(404, Msg.llmNotFound);
  return { id: row.id, models: p.models };
}

/** Checks every permission in input order; the first failure is the error. */
export async function resolveGrants(q: Queryable, userId: string, input: PermissionInput): Promise<{ mcp: McpGrant[]; llm: LlmGrant[] }> {
  const mcp: McpGrant[] = [];
  for (const p of input.mcpPermissions) mcp.push(await mcpGrant(q, userId, p));
  const llm: LlmGrant[] = [];
  for (const p of input.llmPermissions) llm.push(await llmGrant(q, userId, p));
  return { mcp, llm };
}
