import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../log.ts';
import { MemoryState } from '../state/memory.ts';
import type { State } from '../state/state.ts';
import type { SpendCharge } from './durable.ts';
import { BudgetLedger, type ScopeBudget } from './ledger.ts';

const NOW = Date.parse('2025-03-14T12:00:00Z');
const CENT = 1_000_000;

async function withState(fn: (state: State) => Promise<void>): Promise<void> {
  if (process.env.REDIS_URL) {
    const { RedisState } = await import('../state/redis.ts');
    const s = new RedisState(process.env.REDIS_URL, `ledger_${Math.random().toString(36).slice(2)}:`);
    await s.ready();
    try { await fn(s); } finally { await s.delPrefix(''); await s.close(); }
  } else {
    const s = new MemoryState();
    try { await fn(s); } finally { await s.close(); }
  }
}

function setup(state: State, durable: Map<string, number> = new Map()) {
  const charges: SpendCharge[] = [];
  const ledger = new BudgetLedger(state, async (llm, scope, tag) => durable.get(`${llm}|${scope}|${tag}`) ?? 0, silentLogger, (c) => charges.push(c));
  return { ledger, charges };
}

const proxy = (capUsd: number, hardBlock = true, period: ScopeBudget['budget']['period'] = 'daily'): ScopeBudget =>
  ({ llmId: 'llm-1', scope: 'proxy', budget: { period, capUsd, hardBlock } });

test('a hard cap blocks once the window spend reaches it, and the next daily window starts empty', () => withState(async (state) => {
  const { ledger } = setup(state);
  const sc = proxy(0.05); // 5 cents
  for (let i = 0; i < 5; i++) {
    const a = await ledger.admit([sc], CENT, NOW);
    assert.equal(a.blocked, undefined, `request ${i} is admitted`);
    await ledger.settle(a.hold, CENT, NOW);
  }
  const refused = await ledger.admit([sc], CENT, NOW);
  assert.equal(refused.blocked?.spentMicro, 5 * CENT);
  const tomorrow = await ledger.admit([sc], CENT, NOW + 86_400_000);
  assert.equal(tomorrow.blocked, undefined);
}));

test('N parallel requests overshoot a hard cap by no more than the reservations under-estimated', () => withState(async (state) => {
  const { ledger } = setup(state);
  const sc = proxy(0.05);
  const admissions = await Promise.all(Array.from({ length: 50 }, () => ledger.admit([sc], CENT, NOW)));
  const admitted = admissions.filter((a) => !a.blocked);
  assert.equal(admitted.length, 5, 'exactly cap / estimate requests are admitted while all are in flight');
  await Promise.all(admitted.map((a) => ledger.settle(a.hold, CENT, NOW)));
  assert.equal((await ledger.windowSpent(sc, NOW)).spentMicro, 5 * CENT);
  assert.ok((await ledger.admit([sc], CENT, NOW)).blocked);
}));

test('a refused request leaves no reservation behind', () => withState(async (state) => {
  const { ledger } = setup(state);
  const sc = proxy(0.02);
  const first = await ledger.admit([sc], CENT, NOW);
  await ledger.settle(first.hold, 2 * CENT, NOW);
  for (let i = 0; i < 10; i++) assert.ok((await ledger.admit([sc], CENT, NOW)).blocked);
  await ledger.reset(sc, NOW);
  const again = await ledger.admit([sc], CENT, NOW);
  assert.equal(again.blocked, undefined, 'after a reset the refused requests left nothing reserved');
}));

test('capUsd 0 tracks spend without blocking; soft caps flag without blocking', () => withState(async (state) => {
  const { ledger, charges } = setup(state);
  const track = proxy(0);
  const soft: ScopeBudget = { llmId: 'llm-1', scope: 'cred-1', budget: { period: 'monthly', capUsd: 0.01, hardBlock: false } };
  for (let i = 0; i < 3; i++) {
    const a = await ledger.admit([track, soft], CENT, NOW);
    assert.equal(a.blocked, undefined);
    assert.equal(a.overSoft.length, i === 0 ? 0 : 1);
    await ledger.settle(a.hold, CENT, NOW);
  }
  assert.equal((await ledger.windowSpent(track, NOW)).spentMicro, 3 * CENT);
  assert.equal(charges.length, 6, 'every charge reaches the durable copy, per scope');
}));

test('the stricter of key cap and proxy cap wins', () => withState(async (state) => {
  const { ledger } = setup(state);
  const p = proxy(1);
  const key: ScopeBudget = { llmId: 'llm-1', scope: 'cred-2', budget: { period: 'daily', capUsd: 0.01, hardBlock: true } };
  const a = await ledger.admit([p, key], CENT, NOW);
  await ledger.settle(a.hold, CENT, NOW);
  assert.equal((await ledger.admit([p, key], CENT, NOW)).blocked?.scope.scope, 'cred-2');
  const other: ScopeBudget = { ...key, scope: 'cred-3' };
  assert.equal((await ledger.admit([p, other], CENT, NOW)).blocked, undefined, 'another key is not affected');
}));

test('a lost hot window is rebuilt once from the durable copy', () => withState(async (state) => {
  const durable = new Map([['llm-1|proxy|daily:2025-03-14', 4 * CENT]]);
  const { ledger } = setup(state, durable);
  const sc = proxy(0.05);
  const a = await ledger.admit([sc], CENT, NOW);
  assert.equal(a.blocked, undefined);
  await ledger.settle(a.hold, CENT, NOW);
  assert.equal((await ledger.windowSpent(sc, NOW)).spentMicro, 5 * CENT);
  await state.delPrefix('budget:'); // what FLUSHALL does to the hot copy
  durable.set('llm-1|proxy|daily:2025-03-14', 5 * CENT);
  assert.ok((await ledger.admit([sc], CENT, NOW)).blocked, 'spend survives the flush');
  // Concurrent rebuilds do not add the durable spend twice.
  await state.delPrefix('budget:');
  const [x, y] = await Promise.all([ledger.windowSpent(sc, NOW), ledger.windowSpent(sc, NOW)]);
  assert.equal(x.spentMicro, 5 * CENT);
  assert.equal(y.spentMicro, 5 * CENT);
  const other = setup(state, durable).ledger; // a second replica
  assert.equal((await other.windowSpent(sc, NOW)).spentMicro, 5 * CENT);
}));

test('a charge that finds the window missing rebuilds it too', () => withState(async (state) => {
  const durable = new Map([['llm-1|proxy|fixed', 7 * CENT]]);
  const { ledger } = setup(state, durable);
  const sc = proxy(1, true, 'fixed');
  const a = await ledger.admit([sc], CENT, NOW);
  await state.delPrefix('budget:llm-1:proxy:w:');
  await state.delPrefix('budget:llm-1:proxy:h:');
  await ledger.settle(a.hold, 2 * CENT, NOW);
  assert.equal((await ledger.windowSpent(sc, NOW)).spentMicro, 9 * CENT);
}));
