// static_cache: answers a repeated request from the shared state store. The key is cacheKey(cacheToolPrefix(proxy, tool), rules digest,
// identity, sha256(payload)) from gateway/cache-keys.ts (the API's cache drain deletes by the tool prefix). Identity:
// per_identity uses the client key's credential id (svc_api_key) or a hash of the JWT claims named in
// cache_identity_claims (jwt); shared uses one slot for all callers. The kind handler marks a request cacheable by
// setting facts.cache and stores the upstream's successful answer with storeCached() after it arrives; answers
// larger than the owner's response-body cap are not stored. The first applicable static_cache rule wins.
// A state store outage makes the cache a miss, never an error. The lookup's read is sent when the access phase
// starts (prefetch), beside a rate limit's counter, not after it; the rules still decide in array order.
import { sha256Hex } from '../../../crypto/tokens.ts';
import { cacheKey, cacheToolPrefix } from '../../cache-keys.ts';
import type { RuleEntry } from '../../pipeline/build.ts';
import { toolScope } from '../../pipeline/scope.ts';
import type { Exchange, RuleHandler, Verdict } from '../../pipeline/types.ts';
import type { StaticCacheRule } from '@tollgate/contract';

// A snapshot's rules array never changes (a rules PUT builds a new snapshot), so its digest is computed once.
const digests = new WeakMap<readonly unknown[], string>();
function rulesDigest(rules: readonly unknown[]): string {
  let d = digests.get(rules);
  if (d === undefined) digests.set(rules, (d = sha256Hex(JSON.stringify(rules)).slice(0, 16)));
  return d;
}

export function cacheIdentity(x: Exchange, rule: StaticCacheRule): string | undefined {
  if (rule.cache_isolation === 'shared') return 'shared';
  const id = x.identity;
  if (!id) return undefined;
  if (id.mode === 'svc_api_key') return id.credentialId;
  const claims = id.claims ?? {};
  const values = rule.cache_identity_claims.map((c) => [c, claims[c] ?? null]);
  // A token that carries none of the identifying claims is not cached: all such callers would share one slot.
  if (!values.some(([, v]) => v !== null)) return undefined;
  return 'jwt-' + sha256Hex(JSON.stringify(values)).slice(0, 32);
}

/**
 * Spec: "The cache is limited by the user's MCP response-body buffer cap", on LLM proxies too (the LLM cap bounds
 * only token-usage parsing; an LLM answer is storable only if that parse read it whole as well).
 */
export function maxCacheBytes(x: Exchange): number {
  return x.proxy.limits.mcpMaxRespBodyKb * 1024;
}

export function buildStaticCache(entries: RuleEntry<StaticCacheRule>[]): RuleHandler[] {
  return entries.map(({ rule, index }) => ({
    ruleType: 'static_cache', index, ruleName: `static_cache#${index}`, scope: toolScope(rule.tools),
    access: (x) => lookup(x, rule, index),
    prefetch: (x) => prefetch(x, rule),
  }));
}

/** The key this rule looks the request up under, or undefined when the rule does not cache it. */
function keyFor(x: Exchange, rule: StaticCacheRule): string | undefined {
  const material = x.facts.cache;
  if (!material || x.cacheSlot) return undefined;
  if (!rule.tools.includes('*') && !rule.tools.includes(material.tool)) return undefined;
  const identity = cacheIdentity(x, rule);
  if (!identity) return undefined;
  return cacheKey(cacheToolPrefix(x.proxy.id, material.tool), rulesDigest(x.proxy.rules), identity, sha256Hex(material.payload));
}

/** Reads an entry; a state store outage is a miss, never an error (the promise never rejects). */
function read(x: Exchange, key: string): Promise<Buffer | undefined> {
  return x.s.state.getBuffer(key).catch((err: unknown) => {
    x.s.log.warn('cache lookup failed; treated as a miss', { err, proxy: x.proxy.id });
    return undefined;
  });
}

/**
 * The first rule that caches the request sends its read; that rule's lookup decides (the first applicable wins) and
 * takes the key from it: nothing an access hook does changes what the key is made of (the request's cache material,
 * its identity), and the payload's digest is the costly part of a lookup.
 */
function prefetch(x: Exchange, rule: StaticCacheRule): void {
  if (x.cacheRead) return;
  const key = keyFor(x, rule);
  if (key !== undefined) x.cacheRead = { rule, key, hit: read(x, key) };
}

async function lookup(x: Exchange, rule: StaticCacheRule, index: number): Promise<Verdict> {
  const sent = x.cacheRead?.rule === rule ? x.cacheRead : undefined;
  const key = sent ? sent.key : keyFor(x, rule);
  if (key === undefined) return { kind: 'continue' };
  const hit = await (sent ? sent.hit : read(x, key));
  if (hit !== undefined) {
    return { kind: 'respond', status: 200, body: hit.toString('utf8'), cached: true, event: { type: 'allow', ruleName: `static_cache#${index}`, details: { cache: 'hit' } } };
  }
  x.cacheSlot = { key, ttlMs: rule.cache_ttl * 1000, maxBytes: maxCacheBytes(x) };
  return { kind: 'continue' };
}

/** Stores the answer of a request that missed (no-op when nothing missed or the body is over the cap). */
export async function storeCached(x: Exchange, body: string): Promise<boolean> {
  const slot = x.cacheSlot;
  if (!slot || Buffer.byteLength(body) > slot.maxBytes) return false;
  try {
    await x.s.state.setCached(slot.key, body, slot.ttlMs);
    return true;
  } catch (err) {
    x.s.log.warn('cache store failed', { err, proxy: x.proxy.id });
    return false;
  }
}
