// The durable copy of budget windows against the real database (PGlite, or PostgreSQL with DATABASE_URL): a flush's
// charges are summed per window before they are written, and a reset still keeps out every charge made before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { must, startTestApp } from '@tollgate/testkit/harness.ts';
import { applyCharges, readWindowSpend, resetWindowSpend, type SpendCharge } from './durable.ts';

test('charges are summed per window; a reset keeps out what was charged before it, also inside one batch', async () => {
  const t = await startTestApp();
  try {
    const { db } = t.app.services;
    const u = await t.createUser();
    const proxy = async (name: string) => must(await t.client(u.pat).call('POST /api/llm', { body: { name, provider: 'openai', providerKey: 'sk-test-provider-key' } })).id;
    const [a, b] = [await proxy('a'), await proxy('b')];
    const gone = '00000000-0000-4000-8000-000000000000';
    const charge = (llmId: string, scope: string, microCents: number, atMs: number): SpendCharge => ({ llmId, scope, windowTag: 'm202611', microCents, atMs });
    const spend = (llmId: string, scope: string) => readWindowSpend(db, llmId, scope, 'm202611');

    await applyCharges(db, [charge(a, 'proxy', 10.4, 1000), charge(b, 'proxy', 7, 1001), charge(a, 'proxy', 20, 1002), charge(a, 'key1', 5, 1003),
      charge(gone, 'proxy', 99, 1004)]);
    assert.deepEqual([await spend(a, 'proxy'), await spend(b, 'proxy'), await spend(a, 'key1')], [30, 7, 5], 'each charge rounded, then summed per window');
    assert.equal(await spend(gone, 'proxy'), 0, 'a deleted proxy is not charged');

    await resetWindowSpend(db, { llmId: a, scope: 'proxy', windowTag: 'm202611' }, 2000);
    // One batch across the reset: the charge of a flush that was late (1999) stays out, the later ones count, also one
    // naming the proxy in upper case. b's window was not reset, so all of its charges count, whenever they were made.
    await applyCharges(db, [charge(a, 'proxy', 1, 1999), charge(a, 'proxy', 2, 2000), charge(a.toUpperCase(), 'proxy', 4, 2500), charge(b, 'proxy', 8, 1500),
      charge(a, 'key1', 16, 1500)]);
    assert.deepEqual([await spend(a, 'proxy'), await spend(b, 'proxy'), await spend(a, 'key1')], [6, 15, 21]);

    await applyCharges(db, [charge(a, 'proxy', 32, 1000), charge(a, 'proxy', 64, 1999)]);
    assert.equal(await spend(a, 'proxy'), 6, 'a batch made wholly before the reset adds nothing');
    await applyCharges(db, [charge(a, 'proxy', 128, 3000)]);
    assert.equal(await spend(a, 'proxy'), 134);
  } finally {
    await t.close();
  }
});
