// Incremental reloads (load.ts, assemble.ts, migrations 009 and 010): after each kind of change, made through the API
// or straight in SQL, the gateway's snapshot must be what a full load reads, while the users that did not change keep
// their very objects (they were not read again).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { insertLlmFixture, insertMcpFixture } from '@tollgate/testkit/fixtures.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { reloadAndCompare as reloaded } from '@tollgate/testkit/snapshot-content.ts';
import { sha256Hex } from '../crypto/tokens.ts';
import { bumpConfigVersion, CHANGES_KEPT } from './changes.ts';
import type { Snapshot } from './snapshot.ts';

/** The objects of one user in a snapshot, compared by identity. */
function objectsOf(s: Snapshot, u: TestUser): unknown[] {
  return [...s.proxies.values(), ...s.credentialsByHash.values()].filter((o) => o.userId === u.userId);
}

async function changeAndCommit(t: TestApp, sql: string, params: unknown[], { bumpFirst = false } = {}): Promise<void> {
  const s = t.app.services;
  const v = await s.db.tx(async (q) => {
    const bumped = bumpFirst ? await bumpConfigVersion(q) : 0;
    await q.query(sql, params);
    return bumpFirst ? bumped : bumpConfigVersion(q);
  });
  await s.configChanged(v);
}

test('a reload reads only the users that changed, and its snapshot is the one a full load reads', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const [a, b] = [await t.createUser(), await t.createUser()];
    const llm = await insertLlmFixture(s, a.userId);
    await insertMcpFixture(s, a.userId, { tools: ['search'] });
    await insertLlmFixture(s, b.userId);
    await insertMcpFixture(s, b.userId, { tools: ['fetch'] });
    const before = await reloaded(t);
    const bObjects = objectsOf(before, b);
    assert.equal(bObjects.length, 3, 'b\'s two proxies and PAT');

    const key = (await t.request('POST', '/api/keys', { token: a.pat, body: { name: 'bot' } })).body.key as { id: string; key: string };
    let snap = await reloaded(t);
    assert.equal(snap.credentialsByHash.get(sha256Hex(key.key))?.userId, a.userId, 'a new key');
    assert.deepEqual(objectsOf(snap, b), bObjects, 'b\'s objects were kept, not read again');
    assert.notEqual(snap.proxies.get(llm.id), before.proxies.get(llm.id), 'a\'s proxies were read again');

    const rules = [{ rule_type: 'rate_limit', tools: ['*'], name: 'per-key', match_key: 'api_key', threshold: 60, timespan: 60 }];
    assert.equal((await t.request('PUT', `/api/llm/${llm.id}/rules`, { token: a.pat, body: { rules } })).status, 200, 'rules saved');
    snap = await reloaded(t);
    assert.equal(snap.proxies.get(llm.id)?.rules.length, 1, 'a rule');

    await t.setUserTags(a, ['private:permissions:llm:max_resp_body_kb:64']);
    snap = await reloaded(t);
    assert.equal(snap.proxies.get(llm.id)?.limits.llmMaxRespBodyKb, 64, 'the owner\'s tags');

    assert.equal((await t.request('DELETE', `/api/keys/${key.id}`, { token: a.pat })).status, 200);
    snap = await reloaded(t);
    assert.equal(snap.credentialsByHash.get(sha256Hex(key.key)), undefined, 'a revoked key is gone');
    assert.deepEqual(objectsOf(snap, b), bObjects);

    // Written after its transaction's bump: unstamped, and read by every reload until the next bump stamps it.
    await changeAndCommit(t, 'UPDATE gateway_services SET upstream_url = $2 WHERE proxy_id = $1', [llm.id, 'https://late.example.test'], { bumpFirst: true });
    snap = await reloaded(t);
    assert.equal(snap.proxies.get(llm.id)?.upstreamUrl, 'https://late.example.test', 'a write after the bump');

    // A deleted user: the cascade's child rows find no owner, the user's own rows record it.
    await changeAndCommit(t, 'DELETE FROM users WHERE id = $1', [a.userId]);
    snap = await reloaded(t);
    assert.deepEqual(objectsOf(snap, a), [], 'a deleted user\'s proxies and keys are gone');
    assert.equal([...snap.paths.values()].filter((id) => !snap.proxies.has(id)).length, 0, 'no route to a proxy that is gone');
    assert.deepEqual(objectsOf(snap, b), bObjects);
  } finally {
    await t.close();
  }
});

test('a gateway further behind than the changes kept loads every tenant', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const [a, b] = [await t.createUser(), await t.createUser()];
    await insertLlmFixture(s, a.userId);
    const before = objectsOf(await reloaded(t), b);
    for (let i = 0; i < 3; i++) await changeAndCommit(t, 'UPDATE consumers SET tags = $2 WHERE user_id = $1', [a.userId, [`n:${i}`]]);
    await reloaded(t);
    const rows = await s.db.query<{ version: string }>('SELECT DISTINCT version FROM config_changes ORDER BY version');
    assert.ok(rows.length >= 3 && rows.every((r) => r.version !== null), 'each bump stamps the changes it covers');

    // The pruning a bump does once CHANGES_KEPT versions have passed, advanced by hand.
    await changeAndCommit(t, `UPDATE config_state SET changes_from = version + ${CHANGES_KEPT}`, []);
    await changeAndCommit(t, 'UPDATE consumers SET tags = $2 WHERE user_id = $1', [a.userId, ['n:last']]);
    const after = objectsOf(await reloaded(t), b);
    assert.equal(after.length, before.length);
    assert.ok(after.every((o, i) => o !== before[i]), 'every user was read again');
  } finally {
    await t.close();
  }
});

test('every table the snapshot reads records whom its writes change', async () => {
  const source = readFileSync(new URL('./load.ts', import.meta.url), 'utf8');
  const read = new Set([...source.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)/g)].map((m) => m[1]!));
  assert.ok(read.size >= 10, [...read].join(', '));
  const t = await startTestApp();
  try {
    // An insert, an update and a delete each need theirs (migration 010).
    const rows = await t.app.services.db.query<{ tbl: string }>(
      `SELECT c.relname AS tbl FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
        WHERE g.tgname IN ('config_changed_insert', 'config_changed_update', 'config_changed_delete')
          AND c.relnamespace = current_schema()::regnamespace GROUP BY c.relname HAVING count(*) = 3`);
    const recorded = new Set(rows.map((r) => r.tbl));
    assert.deepEqual([...read].filter((tbl) => !recorded.has(tbl)), [], 'tables load.ts reads without the triggers of migration 010');
  } finally {
    await t.close();
  }
});

test('a statement that writes many rows of one user records that user once, and a reload still sees each row', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const [a, b] = [await t.createUser(), await t.createUser()];
    await reloaded(t);
    const bObjects = objectsOf(await reloaded(t), b);
    const [consumer] = await s.db.query<{ id: string }>('SELECT id FROM consumers WHERE user_id = $1', [a.userId]);
    const changes = async () => Number((await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM config_changes'))[0]!.n);
    const count = 300;
    for (const [sql, params] of [
      [`INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, created_at)
         SELECT gen_random_uuid(), $1, 'bulk-' || g, 'bulk', 0 FROM generate_series(1, ${count}) g`, [consumer!.id]],
      ["UPDATE credentials SET tags = '{bulk:tagged}' WHERE key_prefix = 'bulk'", []],
      ["DELETE FROM credentials WHERE key_prefix = 'bulk' AND key_hash <> 'bulk-1'", []],
    ] as const) {
      const before = await changes();
      await changeAndCommit(t, sql, [...params]);
      assert.equal(await changes() - before, 1, `one config_changes row for: ${sql.split(' ')[0]}`);
      const snap = await reloaded(t);
      assert.deepEqual(objectsOf(snap, b), bObjects, 'b was not read again');
    }
    const snap = await reloaded(t);
    const left = [...snap.credentialsByHash.entries()].filter(([hash]) => hash.startsWith('bulk-'));
    assert.deepEqual(left.map(([hash, c]) => [hash, c.userId, c.tags.includes('bulk:tagged')]), [['bulk-1', a.userId, true]]);
  } finally {
    await t.close();
  }
});
