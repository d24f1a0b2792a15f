// Layout of static_cache keys in the state store. The API's cache drain (DELETE /api/mcp/:id/cache?tool=) and the
// gateway's cache rule must agree on it, so it lives here and nowhere else.
/** The cache keys of a whole proxy (its deletion drops them): the prefix of every cacheToolPrefix(id, tool). */
export function proxyCachePrefix(proxyId: string): string {
  return `cache:${proxyId}:`;
}

export function cacheToolPrefix(proxyId: string, tool: string): string {
  return `${proxyCachePrefix(proxyId)}${encodeURIComponent(tool)}:`;
}

/**
 * toolPrefix is cacheToolPrefix(proxyId, tool), computed by the caller so the key stays four positional parts;
 * identity is the credential id, a hash of the JWT claims, or "shared"; payloadHash a hash of the request payload;
 * rulesDigest a digest of the proxy's rules, so that answers stored under other rules (a redaction added since) are
 * never served: they are simply not found and expire.
 */
export function cacheKey(toolPrefix: string, rulesDigest: string, identity: string, payloadHash: string): string {
  return `${toolPrefix}${rulesDigest}:${identity}:${payloadHash}`;
}
