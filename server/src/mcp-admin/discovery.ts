// Tool discovery (POST /api/mcp/:id/tools): the official MCP SDK client over Streamable HTTP, connected to the
// pinned address of the upstream (never a fresh DNS answer), with the upstream bearer token when there is one.
// Every failure becomes DiscoveryFailed with a message safe to relay to the caller (spec: 502 relaying the
// upstream error): the token is scrubbed and the text is bounded.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import type { McpTool } from '../contract/snapshot.ts';
import { createPinnedAgent } from '../net/pinned-dispatcher.ts';
import type { Pin } from '../net/upstream-guard.ts';
import { PACKAGE_VERSION } from '../version.ts';

export class DiscoveryFailed extends Error {}

export interface DiscoveryOptions {
  url: string;
  pin: Pin;
  bearerToken?: string;
  /** Per MCP request (initialize, each tools/list page). */
  timeoutMs?: number;
}

const MAX_PAGES = 50;
const MAX_MESSAGE = 500;

export async function discoverTools(o: DiscoveryOptions): Promise<McpTool[]> {
  const agent = createPinnedAgent(o.pin, { connectTimeoutMs: 5000, keepAliveTimeoutMs: 1000, connections: 4 });
  // undici's fetch and the global one implement the same Fetch API; only their TypeScript declarations differ.
  const pinnedFetch: FetchLike = async (url, init) =>
    (await undiciFetch(url, { ...(init as UndiciRequestInit), dispatcher: agent })) as unknown as Response;
  const headers: Record<string, string> = o.bearerToken ? { authorization: `Bearer ${o.bearerToken}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(o.url), { fetch: pinnedFetch, requestInit: { headers } });
  const client = new Client({ name: 'tollgate-discovery', version: PACKAGE_VERSION });
  const timeout = o.timeoutMs ?? 15_000;
  try {
    await client.connect(transport, { timeout });
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
      for (const t of r.tools) tools.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema });
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return tools;
  } catch (err) {
    throw new DiscoveryFailed(describeFailure(err, o.bearerToken));
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
    await agent.destroy().catch(() => undefined);
  }
}

/** One line from an error and its causes ("fetch failed: connect ECONNREFUSED ..."), without the token. */
export function describeFailure(err: unknown, secret?: string): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const msg = e instanceof Error ? e.message : String(e);
    const code = (e as { code?: unknown }).code;
    const status = typeof code === 'number' && code >= 100 ? `HTTP ${code}: ` : '';
    const line = (status + msg).trim();
    if (line && !parts.some((p) => p.includes(line))) parts.push(line);
    e = e instanceof Error ? e.cause : undefined;
  }
  let text = parts.join(': ').replace(/\s+/g, ' ') || 'unknown error';
  if (secret) text = text.split(secret).join('[redacted]');
  if (text.length > MAX_MESSAGE) text = text.slice(0, MAX_MESSAGE) + '...';
  return `Upstream MCP server error: ${text}`;
}
