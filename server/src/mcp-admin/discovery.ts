// Tool discovery (POST /api/mcp/:id/tools): the official MCP SDK client over Streamable HTTP, connected to the
// pinned address of the upstream (never a fresh DNS answer), with the upstream bearer token when there is one.
// Every failure becomes DiscoveryFailed with a message safe to relay to the caller (spec: 502 relaying the
// upstream error): the token is scrubbed and the text is bounded. A catalog over the caps of discovery-caps.ts fails
// the same way, as soon as it crosses one.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { z } from 'zod';
import type { McpTool } from '../snapshot/snapshot.ts';
import { pinnedTool, toolDefinition } from '../gateway/mcp/pinning/definition.ts';
import { createPinnedAgent } from '../net/pinned-dispatcher.ts';
import type { Pin } from '../net/upstream-guard.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { CatalogCollector, MAX_PAGES } from './discovery-caps.ts';

export class DiscoveryFailed extends Error {}

export interface DiscoveryOptions {
  url: string;
  pin: Pin;
  bearerToken?: string;
  /** Per MCP request (initialize, each tools/list page). */
  timeoutMs?: number;
  maxResponseBytes?: number;
}

const MAX_MESSAGE = 500;
/** Per upstream response: a catalog is small, and a hostile upstream must not fill the API's memory. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The response with its body cut off once it exceeds maxBytes. `onOverflow` is told too: the SDK reads SSE bodies
 * in the background and would otherwise only notice through a request timeout.
 */
function capped(res: Response, maxBytes: number, onOverflow: (err: Error) => void): Response {
  if (!res.body || NULL_BODY_STATUSES.has(res.status)) return res;
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, ctrl) {
      seen += chunk.byteLength;
      if (seen <= maxBytes) {
        ctrl.enqueue(chunk);
        return;
      }
      const err = new Error(`response larger than ${maxBytes} bytes`);
      onOverflow(err);
      ctrl.error(err);
    },
  });
  return new Response(res.body.pipeThrough(limit), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * A tools/list page read without the SDK's Tool schema: that one drops members it does not know (annotations it has
 * no field for, for instance), and the pinned definition must be what the upstream sent, as the gateway sees it.
 */
const LIST_PAGE = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });

async function listAllTools(client: Client, timeout: number): Promise<McpTool[]> {
  const catalog = new CatalogCollector();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, LIST_PAGE, { timeout });
    for (const t of r.tools) catalog.add(pinnedTool(toolDefinition(t)!));
    cursor = r.nextCursor;
    if (!cursor) return catalog.tools;
  }
  throw CatalogCollector.tooManyPages();
}

/** The upstream's catalog: every tool with its pinned definition and fingerprint. */
export async function discoverTools(o: DiscoveryOptions): Promise<McpTool[]> {
  let overflow: (err: Error) => void = () => undefined;
  const overflowed = new Promise<never>((_, reject) => { overflow = reject; });
  overflowed.catch(() => undefined); // observed through the race below
  const maxBytes = o.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const agent = createPinnedAgent(o.pin, { connectTimeoutMs: 5000, keepAliveTimeoutMs: 1000, connections: 4 });
  // undici's fetch and the global one implement the same Fetch API; only their TypeScript declarations differ.
  const pinnedFetch: FetchLike = async (url, init) => capped(
    (await undiciFetch(url, { ...(init as UndiciRequestInit), dispatcher: agent })) as unknown as Response, maxBytes, overflow);
  const headers: Record<string, string> = o.bearerToken ? { authorization: `Bearer ${o.bearerToken}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(o.url), { fetch: pinnedFetch, requestInit: { headers } });
  const client = new Client({ name: 'tollgate-discovery', version: PACKAGE_VERSION });
  const timeout = o.timeoutMs ?? 15_000;
  try {
    const work = client.connect(transport, { timeout }).then(() => listAllTools(client, timeout));
    work.catch(() => undefined); // when the overflow wins the race, closing the client rejects this one
    return await Promise.race([work, overflowed]);
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
