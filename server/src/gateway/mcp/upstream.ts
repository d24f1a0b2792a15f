// The upstream side: the upstream URL for a forwarded path, and the proxy's pinned agent (one per proxy and pin,
// rebuilt only when the pin or upstream changes, so keep-alive connections survive rule edits). The pool, the header
// policy and the call itself are the gateway's, shared with LLM proxies (../upstream/).
import type { Dispatcher } from 'undici';
import type { McpProxyConfig } from '../../snapshot/snapshot.ts';
import type { PinnedPool } from '../upstream/pool.ts';

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

/**
 * The proxy's agent (kept under its id, replaced when the upstream or its pin changes), or undefined when its
 * upstream has no DNS pin (the gateway never connects by name).
 */
export function proxyAgent(pool: PinnedPool, proxy: McpProxyConfig): Dispatcher | undefined {
  const pin = proxy.pin;
  if (!pin) return undefined;
  return pool.agent(proxy.id, pin, `${proxy.upstreamUrl}|${pin.hostname}|${pin.ip}|${pin.port}`);
}
