// rate_limit: counts requests per match-key value in the shared state store (Redis with REDIS_URL, so every gateway
// replica counts into the same window). Fixed window: the window starts at the first hit and lasts `timespan`;
// sliding (`reset_expire_on_hit`): every hit pushes the expiry back. Over the threshold the request gets 429 with
// Retry-After (the window's remaining time), unless `dryrun`. With ban settings, the n-th over-threshold request in
// a window bans the value for `ban_timespan`: that request gets 429 with Retry-After = ban_timespan, and every later
// request carrying the value gets 403 `IP address temporarily banned` in the ban phase, before authentication.
// `tokens_per_minute` is LLM-only and compiled by the LLM data plane; this module skips it.
// If the state store is unreachable, limits fail open (logged): an outage of Redis must not take every proxy down.
import { hash } from 'node:crypto';
import type { RuleEntry } from '../../pipeline/build.ts';
import { emitFor } from '../../pipeline/run.ts';
import { toolScope } from '../../pipeline/scope.ts';
import type { Exchange, RuleHandler, Verdict } from '../../pipeline/types.ts';
import type { RateLimitRule } from '@tollgate/contract';

export const BANNED_MESSAGE = 'IP address temporarily banned';
export const RATE_LIMITED_MESSAGE = 'Rate limit exceeded';

type RequestMatchKey = Exclude<RateLimitRule['match_key'], 'tokens_per_minute'>;

/** The value a request has for a match key, or undefined when it has none yet (consumer/api_key before auth). */
export function matchValue(x: Exchange, key: RequestMatchKey, preAuth = false): string | undefined {
  switch (key) {
    case 'ip': return x.clientIp;
    case 'user_agent': return x.userAgent;
    case 'consumer': return preAuth ? x.principalHint?.consumerKey : x.identity?.consumerKey;
    case 'api_key': return preAuth ? x.principalHint?.apiKeyKey : x.identity?.apiKeyKey;
  }
}

/** A short digest of a counted or banned value (state-store keys stay short whatever the value). */
export const digest = (v: string) => hash('sha256', v, 'base64url').slice(0, 24);
export const banKey = (proxyId: string, key: string, value: string) => `ban:${proxyId}:${key}:${digest(value)}`;

export function buildRateLimit(entries: RuleEntry<RateLimitRule>[]): RuleHandler[] {
  const limits = entries.filter((e) => e.rule.match_key !== 'tokens_per_minute');
  const handlers: RuleHandler[] = limits.map(({ rule, index }) => ({
    ruleType: 'rate_limit', index, ruleName: rule.name, scope: toolScope(rule.tools),
    access: (x) => count(x, rule),
  }));
  const banKeys = [...new Set(limits.filter((e) => e.rule.ban_after_n_exceeded && !e.rule.dryrun).map((e) => e.rule.match_key as RequestMatchKey))];
  if (banKeys.length) {
    handlers.push({
      ruleType: 'rate_limit', index: limits[0]!.index, ruleName: 'ban', scope: toolScope(['*']),
      checkBan: (x) => checkBans(x, banKeys),
    });
  }
  return handlers;
}

/** Phase `ban`: a ban blocks every request of the banned value on this proxy, whatever the tool. */
async function checkBans(x: Exchange, keys: RequestMatchKey[]): Promise<Verdict> {
  for (const key of keys) {
    const value = matchValue(x, key, true);
    if (value === undefined) continue;
    let found: string | undefined;
    try {
      found = await x.s.state.get(banKey(x.proxy.id, key, value));
    } catch (err) {
      x.s.log.warn('ban lookup failed; continuing without it', { err, proxy: x.proxy.id });
      return { kind: 'continue' };
    }
    if (found === undefined) continue;
    const [ruleName, until] = splitBan(found);
    const retry = Math.max(1, Math.ceil((until - x.s.clock.nowMs()) / 1000));
    return {
      kind: 'deny', status: 403, message: BANNED_MESSAGE, headers: { 'retry-after': String(retry) },
      event: { type: 'ip_banned', ruleName, details: { imposed: false, match_key: key } },
    };
  }
  return { kind: 'continue' };
}

function splitBan(v: string): [string, number] {
  const i = v.lastIndexOf('|');
  return [v.slice(0, i), Number(v.slice(i + 1)) || 0];
}

async function count(x: Exchange, rule: RateLimitRule): Promise<Verdict> {
  const key = rule.match_key as RequestMatchKey;
  const value = matchValue(x, key) ?? '';
  // Short, safe values (addresses, credential ids) are used as they are; free text (user agents, JWT subjects) is hashed.
  const suffix = `${x.proxy.id}:${rule.name}:${key}:${key !== 'user_agent' && value.length <= 64 ? value : digest(value)}`;
  const windowMs = rule.timespan * 1000;
  try {
    const c = await x.s.state.incr(`rl:${suffix}`, 1, windowMs, rule.reset_expire_on_hit);
    if (c.value <= rule.threshold) return { kind: 'continue' };
    const retryAfter = Math.max(1, Math.ceil((c.ttlMs > 0 ? c.ttlMs : windowMs) / 1000));
    if (rule.dryrun) {
      emitFor(x, { type: 'rate_limit_dryrun', ruleName: rule.name, details: { match_key: key, count: c.value, threshold: rule.threshold } });
      return { kind: 'continue' };
    }
    if (rule.ban_after_n_exceeded && rule.ban_timespan) {
      const over = await x.s.state.incr(`rlx:${suffix}`, 1, windowMs, rule.reset_expire_on_hit);
      if (over.value >= rule.ban_after_n_exceeded) {
        const banMs = rule.ban_timespan * 1000;
        await x.s.state.set(banKey(x.proxy.id, key, value), `${rule.name}|${x.s.clock.nowMs() + banMs}`, banMs);
        await x.s.state.del(`rlx:${suffix}`);
        return {
          kind: 'deny', status: 429, message: RATE_LIMITED_MESSAGE, headers: { 'retry-after': String(rule.ban_timespan) },
          event: { type: 'ip_banned', ruleName: rule.name, details: { imposed: true, match_key: key, ban_timespan: rule.ban_timespan } },
        };
      }
    }
    return {
      kind: 'deny', status: 429, message: RATE_LIMITED_MESSAGE, headers: { 'retry-after': String(retryAfter) },
      event: { type: 'rate_limited', ruleName: rule.name, details: { match_key: key, threshold: rule.threshold, timespan: rule.timespan } },
    };
  } catch (err) {
    x.s.log.warn('rate limit counter failed; request allowed', { err, proxy: x.proxy.id, rule: rule.name });
    return { kind: 'continue' };
  }
}
