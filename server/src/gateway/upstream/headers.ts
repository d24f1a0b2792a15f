// The one header policy of both proxy kinds: what a client's request may carry on to the upstream, and what the
// upstream's answer may carry back. A client credential never leaves the gateway, whatever header it travels in and
// whichever proxy kind it reaches; the gateway then injects the upstream's own credential (the MCP server's bearer
// token, the provider key). Lua lambdas do not see the credentials either (rules/lambda/handler.ts uses CREDENTIAL_HEADERS).
import type { IncomingHttpHeaders } from 'node:http';

/** Every header a client may put a credential in: its Tollgate key, a provider-native key, a session cookie. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'x-goog-api-key', 'api-key',
]);

/** Headers that never go upstream besides the credentials: hop-by-hop, the forwarding chain, what the gateway sets. */
const NEVER_FORWARDED = new Set([
  ...CREDENTIAL_HEADERS,
  // hop-by-hop (RFC 9110 §7.6.1) and their obsolete relatives; headers named in Connection are dropped too
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings',
  // a client must not claim an address or a chain of proxies to the upstream
  'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip',
  // set by the gateway itself: the upstream's Host, the body length, no compression (rules and meters read the
  // answer); Origin belongs to the client's relation with the gateway (its check is the gateway's), not upstream
  'host', 'content-length', 'expect', 'accept-encoding', 'origin',
]);

/**
 * Cookies an answer may not set in the client. The gateway's host names belong to the site the dashboard is on (a
 * proxy is `<id>.<proxy domain>`), so a cookie an upstream or a tenant's lambda sets there could be scoped to the
 * parent domain and reach the management API, or shadow its session cookie. No proxy needs cookies: MCP sessions
 * travel in Mcp-Session-Id, and a browser gets none of these answers as a page.
 */
export const COOKIE_SETTING_HEADERS: ReadonlySet<string> = new Set(['set-cookie', 'set-cookie2']);

/**
 * Response headers never passed back: hop-by-hop ones (the client's connection is the gateway's, not the upstream's)
 * and the cookie-setting ones.
 */
const NEVER_RETURNED = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', ...COOKIE_SETTING_HEADERS,
]);

/** The headers named in a Connection header (lower case), which are hop-by-hop by declaration. */
function connectionListed(value: string | string[] | undefined): string[] | undefined {
  // The usual values name nothing but themselves (both are dropped anyway): no split on every request.
  if (typeof value !== 'string' || value === '' || value === 'keep-alive' || value === 'close') return undefined;
  return value.toLowerCase().split(',').map((s) => s.trim());
}

// The header copies walk keys with for...in rather than Object.entries: they run on every request, and the entries
// arrays cost more than the copy itself. Both sources are own-property records (node's parsed request headers,
// UpstreamResponse.headers / undici's), so for...in sees exactly their own keys.

/**
 * The headers sent upstream: the client's, less everything above, with `accept-encoding: identity` and the upstream's
 * own credential (`inject`, a header name and value) when there is one.
 */
export function upstreamRequestHeaders(inbound: IncomingHttpHeaders, inject: readonly [string, string] | undefined): Record<string, string | string[]> {
  const listed = connectionListed(inbound.connection);
  const out: Record<string, string | string[]> = {};
  for (const k in inbound) {
    const v = inbound[k];
    if (v === undefined || NEVER_FORWARDED.has(k) || listed?.includes(k)) continue;
    out[k] = v;
  }
  out['accept-encoding'] = 'identity';
  if (inject) out[inject[0]] = inject[1];
  return out;
}

/**
 * The upstream's response headers as the client gets them: hop-by-hop ones, `proxy-*` and Set-Cookie removed, and
 * the length too when the gateway may rewrite the body (`bodyMayChange`).
 */
export function clientResponseHeaders(upstream: Record<string, string | string[] | undefined>, bodyMayChange: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k in upstream) {
    const v = upstream[k];
    if (v === undefined || NEVER_RETURNED.has(k) || k.startsWith('proxy-') || (bodyMayChange && k === 'content-length')) continue;
    out[k] = v;
  }
  return out;
}
