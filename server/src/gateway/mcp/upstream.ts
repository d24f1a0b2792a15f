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
 * appended to it. Query strings of both are kept. Undefined when the path may not be forwarded (forwardablePath).
 */
export function upstreamPath(t: UpstreamTarget, forwardPath: string): string | undefined {
  const q = forwardPath.indexOf('?');
  const path = q < 0 ? forwardPath : forwardPath.slice(0, q);
  if (!forwardablePath(path)) return undefined;
  const query = [t.baseQuery, q < 0 ? '' : forwardPath.slice(q + 1)].filter(Boolean).join('&');
  const joined = path === '/' ? t.basePath : t.basePath.replace(/\/+$/, '') + path;
  return query ? `${joined}?${query}` : joined;
}

/** A `.` or `..` segment, also with a `;` parameter (`..;x`, which some servers read as `..`). */
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:;[^/]*)?(?:\/|$)/;
/**
 * What another parser could read as a different path: an empty segment (`//`), a backslash, a fragment, and the
 * escapes of `.`, `/`, `\` and `%` itself (which a second decoding would turn into the others).
 */
const AMBIGUOUS = /\/\/|\\|#|%(?:2e|2f|5c|25)/i;

/**
 * Whether a client's path stays under the configured MCP path at the upstream however the upstream (or a proxy in
 * front of it) normalises or decodes it: the gateway appends it to that path as sent, so it must name no parent, in
 * any spelling. Refused rather than normalised: a client of an MCP endpoint has no reason to send any of these.
 * Malformed escapes and overlong or invalid UTF-8 (an old way to spell `.` and `/`) are refused too.
 */
export function forwardablePath(path: string): boolean {
  if (!path.startsWith('/') || DOT_SEGMENT.test(path) || AMBIGUOUS.test(path)) return false;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
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
