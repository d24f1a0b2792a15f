// The upstream side: one pinned undici agent per proxy and pin (rebuilt only when the pin or upstream changes, so
// keep-alive connections survive rule edits), the upstream URL for a forwarded path, and the header policy: the
// client's credentials never leave the gateway, the upstream bearer token is injected, MCP headers pass through.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { McpProxyConfig } from '../../contract/snapshot.ts';
import { createPinnedAgent } from '../../net/pinned-dispatcher.ts';

/** Request headers never forwarded: hop-by-hop, the client's credentials, and what the gateway sets itself. */
const DROP_REQUEST = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'authorization', 'cookie', 'x-api-key', 'content-length', 'expect', 'origin', 'accept-encoding',
  'http2-settings',
]);

/** Response headers never passed back: hop-by-hop ones and the length (the gateway may change the body). */
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'proxy-connection']);

// The header copies below walk keys with for...in rather than Object.entries: they run twice per request, and the
// entries arrays cost more than the copy itself. Both sources are own-property records (node's parsed request
// headers, UpstreamResponse.headers), so for...in sees exactly their own keys.

export function upstreamRequestHeaders(h: IncomingHttpHeaders, token: string | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k in h) {
    const v = h[k];
    if (v === undefined || DROP_REQUEST.has(k)) continue;
    out[k] = v;
  }
  // Rules must read the upstream's answer, so it comes uncompressed.
  out['accept-encoding'] = 'identity';
  if (token) out.authorization = `Bearer ${token}`;
  return out;
}

export function clientResponseHeaders(h: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k in h) {
    const v = h[k];
    if (v === undefined || DROP_RESPONSE.has(k)) continue;
    out[k] = v;
  }
  return out;
}

export interface UpstreamTarget {
  origin: string;
  /** Path and query of the configured MCP endpoint. */
  basePath: string;
  baseQuery: string;
}

export function upstreamTarget(url: string): UpstreamTarget {
  const u = new URL(url);
  return { origin: u.origin, basePath: u.pathname || '/', baseQuery: u.search.slice(1) };
}

/**
 * The upstream path for a forwarded request path: `/` is the configured MCP endpoint itself; anything else is
 * appended to it. Query strings of both are kept.
 */
export function upstreamPath(t: UpstreamTarget, forwardPath: string): string {
  const q = forwardPath.indexOf('?');
  const path = q < 0 ? forwardPath : forwardPath.slice(0, q);
  const query = [t.baseQuery, q < 0 ? '' : forwardPath.slice(q + 1)].filter(Boolean).join('&');
  const joined = path === '/' || path === '' ? t.basePath : t.basePath.replace(/\/+$/, '') + path;
  return query ? `${joined}?${query}` : joined;
}

/** Pinned agents by proxy, reused while the pin stays the same. */
export class AgentPool {
  private readonly agents = new Map<string, { fingerprint: string; agent: Dispatcher }>();

  /** The agent for a proxy, or undefined when its upstream has no DNS pin (the gateway never connects by name). */
  get(proxy: McpProxyConfig): Dispatcher | undefined {
    const pin = proxy.pin;
    if (!pin) return undefined;
    const fingerprint = `${proxy.upstreamUrl}|${pin.hostname}|${pin.ip}|${pin.port}`;
    const cur = this.agents.get(proxy.id);
    if (cur?.fingerprint === fingerprint) return cur.agent;
    const agent = createPinnedAgent(pin);
    this.agents.set(proxy.id, { fingerprint, agent });
    // close() lets in-flight requests (open SSE streams) finish on the old agent.
    if (cur) void cur.agent.close().catch(() => undefined);
    return agent;
  }

  prune(live: (id: string) => boolean): void {
    for (const [id, cur] of this.agents) {
      if (!live(id)) {
        this.agents.delete(id);
        void cur.agent.close().catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.agent.destroy().catch(() => undefined)));
    this.agents.clear();
  }
}
