// rate_limit with match_key `tokens_per_minute` (LLM only): counts tokens, not requests, per caller (the client
// key's credential id, or the JWT's hash) in windows of `timespan` seconds aligned to the clock, shared by every
// replica through the state store. On access the request reserves its estimate (prompt bytes / 4 plus the output it
// allows) and is refused with 429 when the window's tokens had already reached `threshold`; when the response is
// accounted the reservation is replaced by the actual token count (reconcile). Ban settings work as for request
// limits (the ban is keyed on the caller and checked before authentication). `reset_expire_on_hit` does not apply:
// the window is aligned so that a late reconciliation always lands in the window it reserved in.
// If the state store is unreachable the limit fails open (logged), like request limits.
import { callOf } from '../../llm/exchange.ts';
import type { LlmRuleHandler } from '../../llm/rule-handler.ts';
import type { RuleEntry } from '../../pipeline/build.ts';
import { emitFor } from '../../pipeline/run.ts';
import { toolScope } from '../../pipeline/scope.ts';
import type { Exchange, Verdict } from '../../pipeline/types.ts';
import { BANNED_MESSAGE, RATE_LIMITED_MESSAGE, banKey, digest } from './handler.ts';
import type { RateLimitRule } from '@tollgate/contract';

const MATCH_KEY = 'tokens_per_minute';

export function buildTokensPerMinute(entries: RuleEntry<RateLimitRule>[]): LlmRuleHandler[] {
  const limits = entries.filter((e) => e.rule.match_key === MATCH_KEY);
  const handlers: LlmRuleHandler[] = limits.map(({ rule, index }) => ({
    ruleType: 'rate_limit', index, ruleName: rule.name, scope: toolScope(rule.tools),
    access: (x) => reserve(x, rule),
  }));
  if (limits.some((e) => e.rule.ban_after_n_exceeded && !e.rule.dryrun)) {
    handlers.push({
      ruleType: 'rate_limit', index: limits[0]!.index, ruleName: 'ban', scope: toolScope(['*']),
      checkBan: (x) => checkBan(x),
    });
  }
  return handlers;
}

async function checkBan(x: Exchange): Promise<Verdict> {
  const who = x.principalHint?.apiKeyKey;
  if (!who) return { kind: 'continue' };
  try {
    const found = await x.s.state.get(banKey(x.proxy.id, MATCH_KEY, who));
    if (found === undefined) return { kind: 'continue' };
    const i = found.lastIndexOf('|');
    const retry = Math.max(1, Math.ceil(((Number(found.slice(i + 1)) || 0) - x.s.clock.nowMs()) / 1000));
    return {
      kind: 'deny', status: 403, message: BANNED_MESSAGE, headers: { 'retry-after': String(retry) },
      event: { type: 'ip_banned', ruleName: found.slice(0, i), details: { imposed: false, match_key: MATCH_KEY } },
    };
  } catch (err) {
    x.s.log.warn('ban lookup failed; continuing without it', { err, proxy: x.proxy.id });
    return { kind: 'continue' };
  }
}

async function reserve(x: Exchange, rule: RateLimitRule): Promise<Verdict> {
  const call = callOf(x);
  const who = x.identity?.apiKeyKey;
  if (!call?.accounted || !who) return { kind: 'continue' };
  const est = call.estimateTokens();
  const tokens = est.inputTokens + est.outputTokens;
  const windowMs = rule.timespan * 1000;
  const now = x.s.clock.nowMs();
  const bucket = Math.floor(now / windowMs);
  const key = `tpm:${x.proxy.id}:${rule.name}:${digest(who)}:${bucket}`;
  const ttl = 2 * windowMs;
  try {
    const c = await x.s.state.incr(key, tokens, ttl);
    const before = c.value - tokens;
    if (before < rule.threshold) {
      call.settlers.push((actual) => x.s.state.incr(key, actual - tokens, ttl).then(() => undefined));
      return { kind: 'continue' };
    }
    const retryAfter = Math.max(1, Math.ceil(((bucket + 1) * windowMs - now) / 1000));
    if (rule.dryrun) {
      call.settlers.push((actual) => x.s.state.incr(key, actual - tokens, ttl).then(() => undefined));
      emitFor(x, { type: 'rate_limit_dryrun', ruleName: rule.name, details: { match_key: MATCH_KEY, tokens: before, threshold: rule.threshold } });
      return { kind: 'continue' };
    }
    await x.s.state.incr(key, -tokens, ttl);
    return (await maybeBan(x, rule, who, key)) ?? {
      kind: 'deny', status: 429, message: RATE_LIMITED_MESSAGE, headers: { 'retry-after': String(retryAfter) },
      event: { type: 'rate_limited', ruleName: rule.name, details: { match_key: MATCH_KEY, threshold: rule.threshold, timespan: rule.timespan, tokens: before } },
    };
  } catch (err) {
    x.s.log.warn('token rate limit counter failed; request allowed', { err, proxy: x.proxy.id, rule: rule.name });
    return { kind: 'continue' };
  }
}

/** key: the window's token counter (reserve); its overrun count lives beside it, for as long. */
async function maybeBan(x: Exchange, rule: RateLimitRule, who: string, key: string): Promise<Verdict | undefined> {
  if (!rule.ban_after_n_exceeded || !rule.ban_timespan) return undefined;
  const ttl = 2 * rule.timespan * 1000;
  const over = await x.s.state.incr(`${key}:x`, 1, ttl);
  if (over.value < rule.ban_after_n_exceeded) return undefined;
  const banMs = rule.ban_timespan * 1000;
  await x.s.state.set(banKey(x.proxy.id, MATCH_KEY, who), `${rule.name}|${x.s.clock.nowMs() + banMs}`, banMs);
  await x.s.state.del(`${key}:x`);
  return {
    kind: 'deny', status: 429, message: RATE_LIMITED_MESSAGE, headers: { 'retry-after': String(rule.ban_timespan) },
    event: { type: 'ip_banned', ruleName: rule.name, details: { imposed: true, match_key: MATCH_KEY, ban_timespan: rule.ban_timespan } },
  };
}
