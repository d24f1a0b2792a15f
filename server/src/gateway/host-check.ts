// DNS-rebinding protection for the whole gateway: a request is served only when its Host is one of the gateway's own
// names. In a rebinding attack a page on evil.example makes its name resolve to the gateway's address, so the browser
// sends `Host: evil.example` with `Origin: http://evil.example`: Origin equals Host, and an Origin check alone passes
// it. The Host, though, is a name the gateway never serves. Accepted, decided once per configuration:
//   - the proxy domain and every name under it (`<id>.<proxy_domain>`, the host routes);
//   - the localhost names: `localhost`, `*.localhost` (RFC 6761: they never leave the machine), loopback addresses;
//   - the configured listen address (TOLLGATE_HOST), and the address the connection actually arrived on (a Host that
//     is the gateway's own IP literal carries no name an attacker could rebind);
//   - the operator's public names, TOLLGATE_GATEWAY_PUBLIC_HOSTS (`gateway.example.com`, `*.ai.example.com`).
import { isIP } from 'node:net';

export interface HostCheckConfig {
  proxyDomain: string;
  /** The listen address (TOLLGATE_HOST). */
  host: string;
  /** TOLLGATE_GATEWAY_PUBLIC_HOSTS: exact names and `*.suffix` wildcards, lower case. */
  publicHosts: readonly string[];
}

/** The host name of a Host header value: lower case, without port, brackets or a trailing dot. */
export function hostName(header: string): string {
  let h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** An address as node reports it, IPv4-mapped IPv6 (`::ffff:10.0.0.5`) written as the IPv4 it is. */
function plainAddress(a: string): string {
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

function isLoopback(name: string): boolean {
  return name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

/**
 * The names served, as configured: exact names and `*.domain` wildcards (besides loopback addresses and the address
 * a connection arrives on, which need no configuration). The start-up log shows this list.
 */
export function servedHostNames(c: HostCheckConfig): string[] {
  const listen = hostName(c.host);
  const own = listen === '0.0.0.0' || listen === '::' || listen === '' ? [] : [listen];
  return ['localhost', '*.localhost', c.proxyDomain, `*.${c.proxyDomain}`, ...own, ...c.publicHosts];
}

/** Builds the check once; per request it costs a lookup or two. */
export function buildHostCheck(c: HostCheckConfig): (hostHeader: string | undefined, localAddress: string | undefined) => boolean {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const h of servedHostNames(c)) {
    if (h.startsWith('*.')) suffixes.push(h.slice(1));
    else exact.add(hostName(h));
  }
  return (hostHeader, localAddress) => {
    if (hostHeader === undefined) return false;
    const name = hostName(hostHeader);
    if (exact.has(name) || isLoopback(name)) return true;
    if (localAddress !== undefined && name === plainAddress(localAddress)) return true;
    for (const s of suffixes) if (name.endsWith(s) && name.length > s.length) return true;
    return false;
  };
}
