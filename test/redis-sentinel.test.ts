// The state store on a Sentinel-managed primary (docs/scaling.md): a primary, a replica and three sentinels, all real
// redis-server processes. The primary is killed (SIGKILL) while two budget ledgers keep charging; the sentinels
// promote the replica, the clients follow it, and every charge is counted exactly once: none lost, none applied
// twice (no command is resent after its connection dropped, and windows charged during the outage are rebuilt from
// the durable copy). The pub/sub subscription follows the new primary too.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { BudgetLedger, type ScopeBudget } from '@tollgate/server/src/budgets/ledger.ts';
import { windowAt } from '@tollgate/server/src/budgets/windows.ts';
import { loadConfig } from '@tollgate/server/src/config/config.ts';
import { DatastoreUnavailable } from '@tollgate/server/src/db/db.ts';
import { silentLogger } from '@tollgate/server/src/log.ts';
import { RedisState } from '@tollgate/server/src/state/redis.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { cli, startRedisSentinels, type RedisSentinels } from './lib/redis-topology.ts';

const missing = spawnSync('redis-server', ['--version']).status === 0 ? false : 'redis-server is not installed';
const CENT = 1_000_000;
const NOW = Date.now();

let topo: RedisSentinels;
let a: RedisState;
let b: RedisState;

before(async () => {
  if (missing) return;
  topo = await startRedisSentinels();
  const prefix = `s_${Math.random().toString(36).slice(2)}:`;
  const target = loadConfig({ TOLLGATE_REDIS_SENTINELS: topo.sentinels, TOLLGATE_REDIS_SENTINEL_NAME: topo.name }).redis!;
  [a, b] = [new RedisState(target, prefix), new RedisState(target, prefix)];
  await Promise.all([a.ready(), b.ready()]);
});
after(async () => {
  if (missing) return;
  await Promise.all([a?.close(), b?.close()]);
  await topo?.close();
});

/** A ledger as a gateway has it, with the durable copy (PostgreSQL there) as a map that its charges are added to. */
function gateway(state: RedisState, durable: Map<string, number>) {
  return new BudgetLedger(state, async (llm, scope, tag) => durable.get(`${llm}|${scope}|${tag}`) ?? 0, silentLogger, {
    rebuildGraceMs: 0,
    rebuildWaitMs: 500,
    onCharge: (c) => durable.set(`${c.llmId}|${c.scope}|${c.windowTag}`, (durable.get(`${c.llmId}|${c.scope}|${c.windowTag}`) ?? 0) + c.microCents),
  });
}

/** One request: admitted (against a cap far above the test's spend) and settled with one cent. */
async function oneRequest(ledger: BudgetLedger, scope: ScopeBudget): Promise<'charged' | 'refused'> {
  try {
    const adm = await ledger.admit([scope], CENT, NOW);
    if (adm.blocked) return 'refused';
    await ledger.settle(adm.hold, CENT, NOW);
    return 'charged';
  } catch (err) {
    // A hard cap that neither store could read refuses the request (503 at the gateway): nothing was charged.
    if (err instanceof DatastoreUnavailable) return 'refused';
    throw err;
  }
}

/** Waits until the replica has applied every write the primary took (an asynchronous failover loses the rest). */
async function replicaCaughtUp(primary: number, replica: number): Promise<void> {
  await eventually(async () => {
    const offset = /master_repl_offset:(\d+)/.exec(await cli(primary, 'info', 'replication'))?.[1];
    return offset !== undefined && (await cli(replica, 'info', 'replication')).includes(`slave_repl_offset:${offset}`);
  }, { what: 'the replica to hold every write' });
}

test('counters from two clients stay exact across a SENTINEL FAILOVER, which demotes the primary', { skip: missing }, async () => {
  const [primary, replica] = topo.dataPorts as [number, number];
  assert.equal(await topo.primaryPort(), primary);
  await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).incr('rl:f', 1, 60_000)));
  await replicaCaughtUp(primary, replica);
  assert.match(await cli(topo.sentinelPorts[0]!, 'sentinel', 'failover', topo.name), /OK/);
  // The old primary closes its clients' connections as it becomes a replica: a refused `role` is "not yet".
  await eventually(async () => (await topo.primaryPort()) === replica && (await cli(primary, 'role').catch(() => '')).startsWith('slave'),
    { what: 'the replica to be promoted and the old primary demoted', timeoutMs: 30_000, intervalMs: 100 });
  // The old primary answers writes with READONLY now: each client must move to the new one and not lose its write.
  const done = new Set<RedisState>();
  await eventually(async () => {
    for (const s of [a, b]) {
      if (!done.has(s)) await s.incr('rl:f', 1, 60_000).then(() => done.add(s), () => undefined);
    }
    return done.size === 2;
  }, { what: 'both clients to write to the new primary', timeoutMs: 20_000, intervalMs: 100 });
  assert.equal(await a.getNumber('rl:f'), 12);
  assert.equal(await b.getNumber('rl:f'), 12);
});

test('a budget window charged through a Sentinel failover counts every charge once', { skip: missing }, async () => {
  const durable = new Map<string, number>();
  const [la, lb] = [gateway(a, durable), gateway(b, durable)];
  const scope: ScopeBudget = { llmId: 'llm-s', scope: 'proxy', budget: { period: 'daily', capUsd: 100, hardBlock: true } };
  const got: string[] = [];
  await a.subscribe('config:changed', (m) => got.push(m));
  let charged = 0;
  const batch = async (n: number) => {
    const r = await Promise.all(Array.from({ length: n }, (_, i) => oneRequest(i % 2 ? la : lb, scope)));
    charged += r.filter((x) => x === 'charged').length;
  };
  await batch(20);
  assert.equal(charged, 20);
  // The previous test swapped the roles: the primary now is the second data server.
  const primary = await topo.primaryPort();
  const replica = topo.dataPorts.find((p) => p !== primary)!;
  await eventually(async () => (await cli(replica, 'info', 'replication')).includes('master_link_status:up'), { what: 'the replica to follow the primary' });
  await replicaCaughtUp(primary, replica);
  await topo.kill(primary);
  // Requests go on while the sentinels notice (down-after 1 s) and promote the replica.
  const deadline = Date.now() + 30_000;
  while ((await topo.primaryPort().catch(() => primary)) === primary) {
    assert.ok(Date.now() < deadline, 'the sentinels promoted the replica within 30 s');
    await batch(4);
  }
  assert.equal(await topo.primaryPort(), replica);
  // A request during the outage is charged to the durable copy alone, so a charge says nothing of Redis: ask it.
  await eventually(() => Promise.all([a.ping(), b.ping()]).then(() => true, () => false), { what: 'both clients to reach the new primary', timeoutMs: 20_000, intervalMs: 100 });
  await batch(10);

  const total = [...durable.values()].reduce((x, y) => x + y, 0);
  assert.equal(total, charged * CENT, 'the durable copy got every charge once');
  // Read the hot copy itself (windowSpent would fall back to the durable copy if Redis did not answer).
  const spentKey = `budget:llm-s:proxy:w:${windowAt('daily', NOW).tag}`;
  assert.equal(await a.getNumber(spentKey), 1 + charged * CENT, 'the hot copy on the new primary counts every charge once');
  assert.equal((await lb.windowSpent(scope, NOW)).spentMicro, charged * CENT);

  // Pub/sub keeps no messages: one published before the subscriber has re-subscribed on the new primary is lost (a
  // gateway's version poll covers that), so publish until one arrives.
  await eventually(async () => {
    await b.publish('config:changed', '7');
    return got.includes('7');
  }, { what: 'the subscription to follow the new primary', timeoutMs: 10_000, intervalMs: 100 });
});
