// The snapshot load (load.ts) on the database the tests run on (PGlite, or PostgreSQL with DATABASE_URL, where every
// query is read through a cursor a part at a time): results larger than one part come back whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { insertLlmFixture } from '@tollgate/testkit/fixtures.ts';
import { startTestApp } from '@tollgate/testkit/harness.ts';
import { loadSnapshot } from './load.ts';

test('a snapshot with more proxies, routes and keys than one part of a read holds every one of them', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const u = await t.createUser();
    const llms: string[] = [];
    for (let i = 0; i < 60; i++) llms.push((await insertLlmFixture(s, u.userId)).id);
    await s.db.query(
      `INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, created_at)
       SELECT gen_random_uuid(), $1, 'hash-' || i, 'tgk_ab', ARRAY['name:k' || i], 0 FROM generate_series(1, 250) i`, [u.consumerId]);
    const snap = await loadSnapshot(s.db, s.secrets);
    for (const id of llms) assert.equal(snap.proxies.get(id)?.kind, 'llm', id);
    for (const id of llms) assert.equal(snap.paths.get(`/${id}`), id);
    assert.equal(snap.hosts.size, snap.paths.size);
    const mine = [...snap.credentialsByHash.entries()].filter(([, c]) => c.consumerId === u.consumerId);
    assert.equal(mine.length, 251, 'the 250 keys and the PAT');
    assert.deepEqual(snap.credentialsByHash.get('hash-137')?.tags, ['name:k137']);
  } finally {
    await t.close();
  }
});
