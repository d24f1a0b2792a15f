import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../log.ts';
import { MemoryState } from '../state/memory.ts';
import type { State } from '../state/state.ts';
import type { SpendCharge } from './durable.ts';
import { DatastoreUnavailable } from '../db/db.ts';
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
  const ledger = new BudgetLedger(state, async (llm, scope, tag) => durable.get(`${llm}|${scope}|${tag}`) ?? 0, silentLogger, { onCharge: (c) => charges.push(c), rebuildGraceMs: 0 });
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

/**
 * The gateway's durable copy as the ledger sees it: every charge handed to onCharge is in it at once (PostgreSQL plus
 * the writer's unflushed buffer), so "the window's true spend" is the sum of the charges. `gate` holds the next reads.
 */
function durableCopy(start = 0) {
  let total = start;
  let gate: Promise<void> | undefined;
  return {
    charge: (c: SpendCharge) => { total += c.microCents; },
    read: async () => {
      if (gate) await gate;
      return total;
    },
    get total() { return total; },
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((r) => { open = r; });
      return () => { gate = undefined; open(); };
    },
  };
}

const replica = (state: State, d: ReturnType<typeof durableCopy>) => new BudgetLedger(state, d.read, silentLogger, { onCharge: d.charge, rebuildGraceMs: 0, rebuildWaitMs: 5000 });

test('charges that land while a lost window is rebuilt are counted once, on this replica and another', () => withState(async (state) => {
  const d = durableCopy(4 * CENT);
  const a = replica(state, d);
  const b = replica(state, d);
  const sc = proxy(1);
  const holds = await Promise.all([a.admit([sc], CENT, NOW), a.admit([sc], CENT, NOW), b.admit([sc], CENT, NOW)]);
  assert.ok(holds.every((h) => !h.blocked));
  await state.delPrefix('budget:llm-1:proxy:w:'); // Redis lost its data while the three requests were in flight
  const open = d.hold();
  const reading = a.windowSpent(sc, NOW); // a rebuild starts and waits on PostgreSQL
  await new Promise((r) => setTimeout(r, 30));
  // The three requests are answered now, during the rebuild: one on the rebuilding replica, one on the other.
  const settled = Promise.all([a.settle(holds[0]!.hold, CENT, NOW), a.settle(holds[1]!.hold, 2 * CENT, NOW), b.settle(holds[2]!.hold, 3 * CENT, NOW)]);
  await new Promise((r) => setTimeout(r, 60));
  open();
  await Promise.all([reading, settled]);
  assert.equal(d.total, 10 * CENT, 'the durable copy has every charge once');
  assert.equal((await a.windowSpent(sc, NOW)).spentMicro, 10 * CENT, 'and so has the rebuilt hot copy');
  assert.equal((await b.windowSpent(sc, NOW)).spentMicro, 10 * CENT);
}));

/** A state store that can be switched off (every call fails like an unreachable Redis) or lose its replies. */
function switchable(inner: State) {
  const sw = { down: false, loseReplies: false };
  const wrapped = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || prop === 'close' || prop === 'delPrefix') return v;
      return async (...args: unknown[]) => {
        if (sw.down) throw new DatastoreUnavailable('redis');
        const r = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (sw.loseReplies && prop === 'incrIfExists') throw new DatastoreUnavailable('redis'); // applied, reply lost
        return r;
      };
    },
  });
  return { state: wrapped, sw };
}

test('with Redis unreachable the durable copy decides; once it answers the outage charges count once, whatever Redis kept', () => withState(async (inner) => {
  for (const comesBack of ['with its data', 'empty', 'having applied a charge whose reply was lost'] as const) {
    await inner.delPrefix('budget:');
    const { state, sw } = switchable(inner);
    const d = durableCopy();
    const a = replica(state, d);
    const sc = proxy(0.05); // 5 cents
    for (let i = 0; i < 2; i++) {
      const h = await a.admit([sc], CENT, NOW);
      await a.settle(h.hold, CENT, NOW);
    }
    sw.down = true;
    for (let i = 0; i < 2; i++) {
      const h = await a.admit([sc], CENT, NOW);
      assert.equal(h.blocked, undefined, `${comesBack}: admitted from the durable copy`);
      await a.settle(h.hold, CENT, NOW);
    }
    assert.equal(d.total, 4 * CENT);
    // Reservations still hold within this process: of two parallel requests at 4 of 5 cents, one is admitted.
    const [x, y] = await Promise.all([a.admit([sc], CENT, NOW), a.admit([sc], CENT, NOW)]);
    assert.deepEqual([!!x.blocked, !!y.blocked], [false, true], comesBack);
    if (comesBack === 'having applied a charge whose reply was lost') {
      sw.down = false;
      sw.loseReplies = true;
    }
    await a.settle(x.hold, CENT, NOW);
    sw.loseReplies = false;
    sw.down = false;
    if (comesBack === 'empty') await inner.delPrefix('budget:');
    assert.equal(d.total, 5 * CENT);
    assert.equal((await a.windowSpent(sc, NOW)).spentMicro, 5 * CENT, `Redis came back ${comesBack}: the hot copy is rebuilt exactly`);
    assert.ok((await a.admit([sc], CENT, NOW)).blocked, 'and the cap holds');
  }
}));

test('a hard cap that neither store can read refuses; a track-only one keeps tracking', () => withState(async (inner) => {
  const { state, sw } = switchable(inner);
  const ledger = new BudgetLedger(state, async () => { throw new DatastoreUnavailable('database'); }, silentLogger, { rebuildGraceMs: 0 });
  sw.down = true;
  await assert.rejects(ledger.admit([proxy(1)], CENT, NOW), DatastoreUnavailable);
  const track = await ledger.admit([proxy(0)], CENT, NOW);
  assert.equal(track.blocked, undefined);
}));
