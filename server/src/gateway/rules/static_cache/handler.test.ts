import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheToolPrefix } from '../../cache-keys.ts';
import { fakeExchange, fakeWorld } from '@tollgate/testkit/exchange.ts';
import { staticCacheSchema } from '@tollgate/contract';
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
