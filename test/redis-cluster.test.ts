// The state store on a real three-master Redis Cluster (docs/scaling.md): every operation the gateway makes
// (rate-limit counters, bans, budget reservations and charges through the ledger, cache entries and their drain,
// pub/sub) from two clients at once, as two gateways would, with keys spread over all three masters; and a Tollgate
// started with TOLLGATE_REDIS_CLUSTER_NODES enforcing a rate limit whose rules reached it over the Cluster's pub/sub.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { BudgetLedger, type ScopeBudget } from '@tollgate/server/src/budgets/ledger.ts';
import { loadConfig } from '@tollgate/server/src/config/config.ts';
import { silentLogger } from '@tollgate/server/src/log.ts';
import { RedisState } from '@tollgate/server/src/state/redis.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { startTestApp } from '@tollgate/testkit/harness.ts';
import { createKey, createProxy, INIT, putRules, rawPost } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { cli, startRedisCluster, type RedisCluster } from './lib/redis-topology.ts';

const missing = spawnSync('redis-server', ['--version']).status === 0 ? false : 'redis-server is not installed';
const CENT = 1_000_000;
const NOW = Date.now();

let cluster: RedisCluster;
let prefix = '';
let a: RedisState;
let b: RedisState;

before(async () => {
  if (missing) return;
  cluster = await startRedisCluster();
  prefix = `c_${Math.random().toString(36).slice(2)}:`;
  const target = loadConfig({ TOLLGATE_REDIS_CLUSTER_NODES: cluster.nodes }).redis!;
  [a, b] = [new RedisState(target, prefix), new RedisState(target, prefix)];
  await Promise.all([a.ready(), b.ready()]);
});
after(async () => {
  if (missing) return;
  await Promise.all([a?.close(), b?.close()]);
  await cluster?.close();
});

/** The keys under `prefix + under` on each master. */
async function keysPerMaster(under: string): Promise<number[]> {
  return Promise.all(cluster.ports.map(async (p) => (await cli(p, '--scan', '--pattern', `${prefix}${under}*`)).split('\n').filter(Boolean).length));
}

test('counters from two clients add up exactly, keep their TTL and slide it when asked', { skip: missing }, async () => {
  const keys = Array.from({ length: 12 }, (_, i) => `rl:p1:api_key:k${i}`);
  await Promise.all(keys.flatMap((k) => Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).incr(k, 1, 60_000))));
  for (const k of keys) assert.equal(await a.getNumber(k), 10, k);
  assert.ok((await keysPerMaster('rl:p1:')).every((n) => n > 0), 'the counters are spread over the three masters');
  const ttl = await b.ttl(keys[0]!);
  assert.ok(ttl > 50_000 && ttl <= 60_000, `a new counter gets its TTL (${ttl})`);
  await a.incr('rl:slide', 1, 1000);
  const slid = await b.incr('rl:slide', 1, 60_000, true);
  assert.deepEqual([slid.value, slid.ttlMs > 1000], [2, true], 'a sliding window resets the TTL on every hit');
  assert.equal(await a.incrIfExists('rl:absent', 1, 1000), undefined, 'incrIfExists creates nothing');
  assert.equal(await a.ttl('rl:absent'), -2);
});

test('a ban set through one client is seen, with its TTL, through the other; the prefix is on every key', { skip: missing }, async () => {
  await a.set('ban:p1:ip:abc', 'shared|123', 120_000);
  assert.equal(await b.get('ban:p1:ip:abc'), 'shared|123');
  assert.ok((await b.ttl('ban:p1:ip:abc')) > 100_000);
  assert.equal(await b.setIfAbsent('ban:p1:ip:abc', 'other', 1000), false, 'SET NX refuses an existing key');
  const found = (await Promise.all(cluster.ports.map((p) => cli(p, '--scan', '--pattern', `${prefix}ban:*`)))).join('\n');
  assert.match(found, new RegExp(`^${prefix}ban:p1:ip:abc$`, 'm'), 'the key is stored under the prefix');
});

test('two budget ledgers on the Cluster admit exactly cap / estimate parallel requests and charge each once', { skip: missing }, async () => {
  const durable = new Map<string, number>();
  const ledger = (state: RedisState) => new BudgetLedger(state, async (llm, scope, tag) => durable.get(`${llm}|${scope}|${tag}`) ?? 0, silentLogger, {
    rebuildGraceMs: 0,
    onCharge: (c) => durable.set(`${c.llmId}|${c.scope}|${c.windowTag}`, (durable.get(`${c.llmId}|${c.scope}|${c.windowTag}`) ?? 0) + c.microCents),
  });
  const [la, lb] = [ledger(a), ledger(b)];
  const scopes: ScopeBudget[] = [
    { llmId: 'llm-c', scope: 'proxy', budget: { period: 'daily', capUsd: 0.05, hardBlock: true } },
    { llmId: 'llm-c', scope: 'key-1', budget: { period: 'monthly', capUsd: 1, hardBlock: true } },
  ];
  const admissions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? la : lb).admit(scopes, CENT, NOW)));
  const admitted = admissions.filter((x) => !x.blocked);
  assert.equal(admitted.length, 5, 'a 5-cent cap admits five 1-cent estimates while all forty are in flight');
  await Promise.all(admitted.map((x, i) => (i % 2 ? la : lb).settle(x.hold, CENT, NOW)));
  assert.equal((await la.windowSpent(scopes[0]!, NOW)).spentMicro, 5 * CENT);
  assert.equal((await lb.windowSpent(scopes[1]!, NOW)).spentMicro, 5 * CENT);
  assert.ok((await lb.admit(scopes, CENT, NOW)).blocked, 'the cap is reached on both ledgers');
  assert.deepEqual([...durable.values()].sort(), [5 * CENT, 5 * CENT], 'the durable copy got each charge once');
});

test('DEL of keys in different slots, and a cache drain that reaches every master', { skip: missing }, async () => {
  await a.set('x:one', '1');
  await a.set('y:two', '2');
  assert.notEqual(await cli(cluster.ports[0]!, 'cluster', 'keyslot', `${prefix}x:one`), await cli(cluster.ports[0]!, 'cluster', 'keyslot', `${prefix}y:two`));
  await b.del('x:one', 'y:two');
  assert.deepEqual([await a.get('x:one'), await a.get('y:two')], [undefined, undefined]);

  const body = Buffer.from('{"result":"cached"}');
  await Promise.all(Array.from({ length: 60 }, (_, i) => a.setCached(`cache:p2:tool:${i}`, body, 60_000)));
  await a.setCached('cache:p3:tool:0', body, 60_000);
  assert.deepEqual(await b.getBuffer('cache:p2:tool:7'), body);
  assert.ok((await keysPerMaster('cache:p2:')).every((n) => n > 0), 'the entries are spread over the three masters');
  assert.equal(await b.delPrefix('cache:p2:'), 60, 'the drain finds the entries on every master');
  assert.deepEqual(await keysPerMaster('cache:p2:'), [0, 0, 0]);
  assert.deepEqual(await a.getBuffer('cache:p3:tool:0'), body, 'another proxy\'s entries stay');
});

test('a message published through one client reaches the other\'s subscription', { skip: missing }, async () => {
  const got: string[] = [];
  const unsubscribe = await a.subscribe('config:changed', (m) => got.push(m));
  await b.publish('config:changed', '42');
  await eventually(() => got.includes('42'), { what: 'the message', timeoutMs: 5000 });
  await unsubscribe();
});

test('a Tollgate on the Cluster enforces a rate limit whose rules reached its gateway over pub/sub', { skip: missing }, async () => {
  const up = await startMcpUpstream();
  const t = await startTestApp({ env: { REDIS_URL: '', TOLLGATE_REDIS_CLUSTER_NODES: cluster.nodes } });
  try {
    assert.equal(t.app.services.state.kind, 'redis');
    const user = await t.createUser();
    const p = await createProxy(t, user, up.url);
    const key = await createKey(t, p);
    await putRules(t, p, [{ rule_type: 'rate_limit', tools: ['*'], name: 'on-cluster', match_key: 'api_key', threshold: 3, timespan: 60 }]);
    const h = { authorization: `Bearer ${key}` };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await rawPost(p.pathUrl, INIT, h)).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  } finally {
    await t.close();
    await up.close();
  }
});
