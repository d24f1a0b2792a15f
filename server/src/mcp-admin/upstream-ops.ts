// Operations on an MCP server's upstream side: tool discovery, DNS re-pin, and draining one tool's cache.
import type { McpTool } from '../snapshot/snapshot.ts';
import { cacheToolPrefix } from '../gateway/cache-keys.ts';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import { HttpError } from '../http/errors.ts';
import type { Pin } from '../net/upstream-guard.ts';
import { requireMcp } from '../proxies/ownership.ts';
import { pinOr400, storePin } from '../proxies/pin.ts';
import type { Services } from '../services.ts';
import { DiscoveryFailed, discoverTools } from './discovery.ts';
import type { McpRow } from './records.ts';
import { lockOwnedMcp, tokenAad } from './servers.ts';
import { clearForDiscovery, recordApproval, type Actor } from './tool-pinning.ts';

/**
 * Calls tools/list on the upstream, stores the catalog (the gateway filters tools/list by it, tool pinning compares
 * with its fingerprints) and returns it. Pending tool changes are cleared: discovery pins what the upstream serves,
 * and is recorded as their approval by the actor.
 */
export async function refreshTools(s: Services, actor: Actor, id: string, timeoutMs?: number): Promise<McpTool[]> {
  const userId = actor.userId;
  const row = await requireMcp<McpRow>(s.db, userId, id);
  const pin = row.pin ?? await pinOr400(s.upstreams, row.url, 'url');
  const bearerToken = row.auth_type === 'bearer' && row.auth_token_enc ? s.secrets.open(row.auth_token_enc, tokenAad(id)) : undefined;
  let tools: McpTool[];
  try {
    tools = await discoverTools({ url: row.url, pin, bearerToken, timeoutMs });
  } catch (err) {
    if (err instanceof DiscoveryFailed) throw new HttpError(502, err.message);
    throw err;
  }
  const { version, cleared } = await s.db.tx(async (q) => {
    const cur = await lockOwnedMcp(q, userId, id); // deleted meanwhile: 404
    // The URL changed while we were asking the old upstream: its catalog is not this server's any more.
    if (cur.url !== row.url) throw new HttpError(409, 'The MCP server URL changed during discovery; run it again');
    const cleared = await clearForDiscovery(q, cur);
    await q.query('UPDATE mcp_servers SET tools = $2::jsonb WHERE id = $1', [id, JSON.stringify(tools)]);
    return { version: await bumpConfigVersion(q), cleared };
  });
  await s.configChanged(version);
  if (cleared.length) recordApproval(s, actor, { mcpId: id, changes: cleared, via: 'discovery' });
  return tools;
}

/** Resolves the upstream host again, checks the answer and stores it as the new pin. */
export async function reResolve(s: Services, userId: string, id: string): Promise<Pin> {
  const row = await requireMcp<McpRow>(s.db, userId, id);
  const pin = await pinOr400(s.upstreams, row.url, 'url');
  const version = await s.db.tx(async (q) => {
    const cur = await lockOwnedMcp(q, userId, id);
    if (cur.url !== row.url) throw new HttpError(409, 'The MCP server URL changed during re-resolve; run it again');
    return storePin(q, 'mcp_servers', id, pin);
  });
  await s.configChanged(version);
  return pin;
}

/** Drops every cached response of one tool on one MCP server; other tools keep theirs. */
export async function drainToolCache(s: Services, userId: string, id: string, tool: string | null): Promise<number> {
  await requireMcp(s.db, userId, id);
  if (tool === null || tool === '') throw new HttpError(400, 'tool: is required (query parameter ?tool=<tool_name>)');
  return s.state.delPrefix(cacheToolPrefix(id, tool));
}
