// Finds the proxy a request is for: host route `<id>.<proxy_domain>` first, then path route `/<id>` (the prefix is
// stripped before forwarding).
import type { ProxyConfig, Snapshot } from '../snapshot/snapshot.ts';

export interface RouteMatch {
  proxy: ProxyConfig;
  /** Path and query to forward upstream (path route prefix removed). */
  forwardPath: string;
  via: 'host' | 'path';
}

export function resolveRoute(snap: Snapshot, hostHeader: string | undefined, rawUrl: string): RouteMatch | undefined {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '');
  const byHost = snap.hosts.get(host);
  if (byHost) {
    const proxy = snap.proxies.get(byHost);
    if (proxy) return { proxy, forwardPath: rawUrl || '/', via: 'host' };
  }
  const end = rawUrl.slice(1).search(/[/?]/);
  const first = end < 0 ? rawUrl : rawUrl.slice(0, end + 1);
  const byPath = snap.paths.get(first);
  if (!byPath) return undefined;
  const proxy = snap.proxies.get(byPath);
  if (!proxy) return undefined;
  let rest = rawUrl.slice(first.length);
  if (!rest.startsWith('/')) rest = '/' + rest;
  return { proxy, forwardPath: rest, via: 'path' };
}
