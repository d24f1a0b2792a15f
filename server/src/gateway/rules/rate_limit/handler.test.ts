import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeExchange, fakeWorld, type FakeRequest } from '@tollgate/testkit/exchange.ts';
import type { RuleHandler, Verdict } from '../../pipeline/types.ts';
import { rateLimitSchema } from '@tollgate/contract';
import { buildRateLimit } from './handler.ts';

function setup(rules: Array<Record<string, unknown>>) {
  const entries = rules.map((r, index) => ({ rule: rateLimitSchema.parse({ rule_type: 'rate_limit', tools: ['*'], name: `r${index}`, timespan: 60, ...r }), index }));
  const handlers = buildRateLimit(entries);
  const w = fakeWorld();
  const hit = async (r: FakeRequest = {}): Promise<Verdict> => {
    const x = fakeExchange(w, r);
    x.principalHint = { consumerKey: x.identity!.consumerKey, apiKeyKey: x.identity!.apiKeyKey };
    for (const h of handlers.filter((h: RuleHandler) => h.checkBan)) {
      const v = await h.checkBan!(x);
      if (v.kind !== 'continue') return v;
    }
    for (const h of handlers.filter((h: RuleHandler) => h.access)) {
      if (!h.scope.all && !h.scope.matches(x.facts.tools)) continue;
      const v = await h.access!(x);
      if (v.kind !== 'continue') return v;
    }
    return { kind: 'continue' };
  };
  return { hit, w };
}

test('fixed window: threshold requests pass, the next gets 429 with the remaining window as Retry-After', async () => {
  const { hit, w } = setup([{ match_key: 'ip', threshold: 2 }]);
  assert.equal((await hit()).kind, 'continue');
  w.now.ms += 20_000;
  assert.equal((await hit()).kind, 'continue');
  const v = await hit();
  assert.ok(v.kind === 'deny' && v.status === 429);
  assert.equal(v.headers?.['retry-after'], '40');
  assert.equal(v.event.type, 'rate_limited');
  w.now.ms += 40_001;
  assert.equal((await hit()).kind, 'continue', 'a new window starts');
});

test('sliding window: every hit pushes the expiry back', async () => {
  const { hit, w } = setup([{ match_key: 'ip', threshold: 1, reset_expire_on_hit: true }]);
  assert.equal((await hit()).kind, 'continue');
  for (let i = 0; i < 3; i++) {
    w.now.ms += 50_000;
    assert.equal((await hit()).kind, 'deny');
  }
  w.now.ms += 60_001;
  assert.equal((await hit()).kind, 'continue');
});

test('match keys separate what they should', async () => {
  const ua = setup([{ match_key: 'user_agent', threshold: 1 }]);
  assert.equal((await ua.hit({ userAgent: 'a' })).kind, 'continue');
  assert.equal((await ua.hit({ userAgent: 'a', ip: '10.0.0.9' })).kind, 'deny');
  assert.equal((await ua.hit({ userAgent: 'b' })).kind, 'continue');
  const key = setup([{ match_key: 'api_key', threshold: 1 }]);
  assert.equal((await key.hit({ identity: { apiKeyKey: 'k1' } })).kind, 'continue');
  assert.equal((await key.hit({ identity: { apiKeyKey: 'k2' } })).kind, 'continue');
  assert.equal((await key.hit({ identity: { apiKeyKey: 'k1' } })).kind, 'deny');
  const consumer = setup([{ match_key: 'consumer', threshold: 1 }]);
  assert.equal((await consumer.hit({ identity: { apiKeyKey: 'k1', consumerKey: 'c' } })).kind, 'continue');
  assert.equal((await consumer.hit({ identity: { apiKeyKey: 'k2', consumerKey: 'c' } })).kind, 'deny');
});

test('dryrun never blocks and records rate_limit_dryrun', async () => {
  const { hit, w } = setup([{ match_key: 'ip', threshold: 1, dryrun: true }]);
  for (let i = 0; i < 3; i++) assert.equal((await hit()).kind, 'continue');
  assert.deepEqual(w.events.map((e) => e.eventType), ['rate_limit_dryrun', 'rate_limit_dryrun']);
});

test('bans: the n-th over-threshold request bans for ban_timespan; the ban is found before anything else', async () => {
  const { hit, w } = setup([{ match_key: 'ip', threshold: 1, ban_after_n_exceeded: 2, ban_timespan: 600 }]);
  assert.equal((await hit()).kind, 'continue');
  const first = await hit();
  assert.ok(first.kind === 'deny' && first.event.type === 'rate_limited');
  const banning = await hit();
  assert.ok(banning.kind === 'deny' && banning.status === 429 && banning.headers?.['retry-after'] === '600' && banning.event.type === 'ip_banned');
  w.now.ms += 100_000;
  const banned = await hit();
  assert.ok(banned.kind === 'deny' && banned.status === 403 && banned.message === 'IP address temporarily banned');
  assert.equal(banned.headers?.['retry-after'], '500');
  assert.equal((await hit({ ip: '10.9.9.9' })).kind, 'continue', 'another address is not banned');
  w.now.ms += 500_001;
  assert.equal((await hit()).kind, 'continue', 'the ban expires');
});

test('tokens_per_minute is left to the LLM data plane', () => {
  const entries = [{ rule: rateLimitSchema.parse({ rule_type: 'rate_limit', tools: ['*'], name: 't', match_key: 'tokens_per_minute', threshold: 1000, timespan: 60 }), index: 0 }];
  assert.deepEqual(buildRateLimit(entries), []);
});
