import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheToolPrefix } from '../../cache-keys.ts';
import { fakeExchange, fakeWorld } from '@tollgate/testkit/exchange.ts';
import { RULE_SCHEMAS, staticCacheSchema, type Rule } from '@tollgate/contract';
import { buildPipeline } from '../../pipeline/build.ts';
import { RULE_SERVERS } from '../../pipeline/rule-servers.ts';
import { runAccessPhases } from '../../pipeline/run.ts';
import { CONTINUE } from '../../pipeline/types.ts';
import { buildStaticCache, storeCached } from './handler.ts';

const rule = (r: Record<string, unknown> = {}) => staticCacheSchema.parse({ rule_type: 'static_cache', tools: ['*'], cache_ttl: 60, ...r });

test('a miss reserves a slot, the stored answer is the next hit, and it expires after cache_ttl', async () => {
  const w = fakeWorld();
  const [h] = buildStaticCache([{ rule: rule(), index: 0 }]);
  const cache = { tool: 'search', payload: '{"q":"x"}' };
  const x1 = fakeExchange(w, { cache });
  assert.equal((await h!.access!(x1)).kind, 'continue');
  assert.ok(x1.cacheSlot?.key.startsWith(cacheToolPrefix(w.proxy.id, 'search')), 'the key has the drain layout');
  assert.equal(await storeCached(x1, '{"content":[]}'), true);
  const v = await h!.access!(fakeExchange(w, { cache }));
  assert.ok(v.kind === 'respond' && v.cached && v.body === '{"content":[]}');
  w.now.ms += 60_001;
  assert.equal((await h!.access!(fakeExchange(w, { cache }))).kind, 'continue');
});

test('per_identity separates credentials and JWT claim sets; shared does not', async () => {
  const w = fakeWorld();
  const [per] = buildStaticCache([{ rule: rule({ cache_identity_claims: ['sub'] }), index: 0 }]);
  const cache = { tool: 't', payload: '1' };
  const a = fakeExchange(w, { cache, identity: { credentialId: 'a' } });
  await per!.access!(a);
  await storeCached(a, '"A"');
  assert.equal((await per!.access!(fakeExchange(w, { cache, identity: { credentialId: 'b' } }))).kind, 'continue');
  assert.equal((await per!.access!(fakeExchange(w, { cache, identity: { credentialId: 'a' } }))).kind, 'respond');
  const j1 = fakeExchange(w, { cache, identity: { mode: 'jwt', credentialId: undefined, claims: { sub: 'u1', iat: 1 } } });
  await per!.access!(j1);
  await storeCached(j1, '"U1"');
  const sameSub = await per!.access!(fakeExchange(w, { cache, identity: { mode: 'jwt', credentialId: undefined, claims: { sub: 'u1', iat: 2 } } }));
  assert.ok(sameSub.kind === 'respond' && sameSub.body === '"U1"', 'claims outside cache_identity_claims do not matter');
  assert.equal((await per!.access!(fakeExchange(w, { cache, identity: { mode: 'jwt', credentialId: undefined, claims: { sub: 'u2' } } }))).kind, 'continue');
  const [shared] = buildStaticCache([{ rule: rule({ cache_isolation: 'shared' }), index: 0 }]);
  const s1 = fakeExchange(w, { cache: { tool: 's', payload: '1' }, identity: { credentialId: 'a' } });
  await shared!.access!(s1);
  await storeCached(s1, '"S"');
  assert.equal((await shared!.access!(fakeExchange(w, { cache: { tool: 's', payload: '1' }, identity: { credentialId: 'z' } }))).kind, 'respond');
});

test('answers over the owner response cap are not stored; uncacheable requests are ignored', async () => {
  const w = fakeWorld([], { limits: { mcpMaxRespBodyKb: 1, llmMaxRespBodyKb: 2048, mcpMaxReqBodyKb: 4096, llmMaxReqBodyKb: 32768 } });
  const [h] = buildStaticCache([{ rule: rule(), index: 0 }]);
  const x = fakeExchange(w, { cache: { tool: 't', payload: 'p' } });
  await h!.access!(x);
  assert.equal(await storeCached(x, 'x'.repeat(2000)), false);
  const none = fakeExchange(w, {});
  assert.equal((await h!.access!(none)).kind, 'continue');
  assert.equal(none.cacheSlot, undefined);
});

test('per_identity in jwt mode: a token with none of the identifying claims is not cached (no shared slot by accident)', async () => {
  const w = fakeWorld();
  const [per] = buildStaticCache([{ rule: rule({ cache_identity_claims: ['sub'] }), index: 0 }]);
  const cache = { tool: 't', payload: '1' };
  const anon = fakeExchange(w, { cache, identity: { mode: 'jwt', credentialId: undefined, claims: { iss: 'x' } } });
  assert.equal((await per!.access!(anon)).kind, 'continue');
  assert.equal(anon.cacheSlot, undefined, 'no slot: neither read nor stored');
  assert.throws(() => rule({ cache_identity_claims: [] }));
});

test('the lookup is sent beside the rate limit counter, not after its answer; the rate limit still refuses a cached call', async () => {
  const limit = RULE_SCHEMAS.rate_limit.parse({ rule_type: 'rate_limit', tools: ['*'], name: 'rl', match_key: 'api_key', threshold: 1, timespan: 60 }) as Rule;
  const w = fakeWorld([limit, rule({ cache_isolation: 'shared' })]);
  const p = buildPipeline({ s: w.s, proxy: w.proxy, current: () => w.snapshot }, RULE_SERVERS.mcp);
  const state = w.s.state;
  const [incr, getBuffer] = [state.incr.bind(state), state.getBuffer.bind(state)];
  const sent: string[] = [];
  let answerCounter!: () => void;
  state.incr = async (...a) => {
    sent.push('counter');
    await new Promise<void>((r) => (answerCounter = r));
    return incr(...a);
  };
  state.getBuffer = (k) => (sent.push('lookup'), getBuffer(k));
  const cache = { tool: 'search', payload: '{"q":1}' };
  const allow = () => CONTINUE;

  const x1 = fakeExchange(w, { tools: ['search'], cache });
  const first = runAccessPhases(p, x1, allow);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(sent, ['lookup', 'counter'], 'both are out before the counter is answered');
  answerCounter();
  assert.equal((await first).kind, 'continue', 'a miss');
  await storeCached(x1, '"answer"');

  // The same key is over its limit: refused, although the answer is in the cache and was read.
  const second = runAccessPhases(p, fakeExchange(w, { tools: ['search'], cache }), allow);
  await new Promise((r) => setImmediate(r));
  answerCounter();
  const refused = await second;
  assert.ok(refused.kind === 'deny' && refused.status === 429, JSON.stringify(refused));

  // Another key within its limit gets the shared entry.
  const other = runAccessPhases(p, fakeExchange(w, { tools: ['search'], cache, identity: { apiKeyKey: 'cred-2', credentialId: 'cred-2' } }), allow);
  await new Promise((r) => setImmediate(r));
  answerCounter();
  const hit = await other;
  assert.ok(hit.kind === 'respond' && hit.cached && hit.body === '"answer"', JSON.stringify(hit));

  // A failed read is a miss, and a refused request leaves its failed read unused (no unhandled rejection).
  state.getBuffer = () => Promise.reject(new Error('state store down'));
  const down = runAccessPhases(p, fakeExchange(w, { tools: ['search'], cache }), allow);
  await new Promise((r) => setImmediate(r));
  answerCounter();
  assert.equal((await down).kind, 'deny');
  const missed = fakeExchange(w, { tools: ['search'], cache, identity: { apiKeyKey: 'cred-3', credentialId: 'cred-3' } });
  const miss = runAccessPhases(p, missed, allow);
  await new Promise((r) => setImmediate(r));
  answerCounter();
  assert.equal((await miss).kind, 'continue');
  assert.ok(missed.cacheSlot, 'the miss still reserves a slot for the answer');
});
