// The upstream side: one pinned undici agent per proxy and pin (rebuilt only when the pin or upstream changes, so
// keep-alive connections survive rule edits) and the upstream URL for a forwarded path. The header policy is the
// gateway's, shared with LLM proxies (../upstream/headers.ts).
import type { Dispatcher } from 'undici';
import type { McpProxyConfig } from '../../snapshot/snapshot.ts';
import { createPinnedAgent } from '../../net/pinned-dispatcher.ts';

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
