// Test fixtures that put proxies straight into storage, with their gateway objects, for tests that need a proxy
// without going through POST /api/mcp or /api/llm (no upstream, no discovery, no DNS). The rows have the same shape
// the real endpoints write, and the gateway is told about them like any other change.
import { randomUUID } from 'node:crypto';
import type { McpTool } from '@tollgate/server/src/snapshot/snapshot.ts';
import { createGatewayObjects } from '@tollgate/server/src/proxies/gateway-objects.ts';
import { unixNow, type Services } from '@tollgate/server/src/services.ts';

export interface McpFixtureOptions {
  name?: string;
  url?: string;
  /** The discovered catalog; a string is a tool with that name, an empty description and an empty input schema. */
  tools?: Array<string | McpTool>;
}

export interface LlmFixtureOptions {
  name?: string;
  provider?: 'openai' | 'anthropic' | 'gemini' | 'mistral';
  upstreamUrl?: string;
  allowedModels?: string[];
}

function toTool(t: string | McpTool): McpTool {
  return typeof t === 'string' ? { name: t, description: '', inputSchema: { type: 'object' } } : t;
}

/** Inserts an MCP server owned by userId with a tool catalog; returns its id once the gateway has it. */
export async function insertMcpFixture(s: Services, userId: string, o: McpFixtureOptions = {}): Promise<{ id: string }> {
  const id = randomUUID();
  const url = o.url ?? 'https://mcp.example.test/mcp';
  const nowS = unixNow(s.clock);
  const version = await s.db.tx(async (q) => {
    await q.query(
      'INSERT INTO mcp_servers (id, user_id, name, url, auth_type, tools, created_at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)',
      [id, userId, o.name ?? `mcp-${id.slice(0, 8)}`, url, 'none', JSON.stringify((o.tools ?? []).map(toTool)), nowS],
    );
    return createGatewayObjects(q, { proxyId: id, kind: 'mcp', userId, upstreamUrl: url, auth: null, proxyDomain: s.config.proxyDomain, nowS });
  });
  await s.configChanged(version);
  return { id };
}

/** Inserts an LLM proxy owned by userId (no provider key); returns its id once the gateway has it. */
export async function insertLlmFixture(s: Services, userId: string, o: LlmFixtureOptions = {}): Promise<{ id: string }> {
  const id = randomUUID();
  const upstreamUrl = o.upstreamUrl ?? 'https://api.openai.com';
  const nowS = unixNow(s.clock);
  const version = await s.db.tx(async (q) => {
    await q.query(
      'INSERT INTO llm_proxies (id, user_id, name, provider, allowed_models, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)',
      [id, userId, o.name ?? `llm-${id.slice(0, 8)}`, o.provider ?? 'openai', JSON.stringify(o.allowedModels ?? []), nowS],
    );
    return createGatewayObjects(q, { proxyId: id, kind: 'llm', userId, upstreamUrl, auth: null, proxyDomain: s.config.proxyDomain, nowS });
  });
  await s.configChanged(version);
  return { id };
}
