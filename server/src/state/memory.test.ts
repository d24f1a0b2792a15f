// The in-process state's bound on cache entries: oldest answers go first once the bound is passed, while counters,
// bans and budget values (set / incr) are never dropped early, whatever the cache does. TTLs are read from the
// injected clock, so expiry is tested by moving it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryState } from './memory.ts';

const KB = 1024;

test('cache entries beyond the bound are dropped oldest first; counters and plain values stay', async () => {
  const s = new MemoryState(Date.now, 64 * KB);
  try {
    await s.set('ban:1', 'rule|123', 60_000);
    await s.incr('rl:1', 5, 60_000);
    const body = 'x'.repeat(KB);
    for (let i = 0; i < 200; i++) await s.setCached(`c:${i}`, body, 60_000);
    assert.ok(s.cacheBytes <= 64 * KB, `${s.cacheBytes} bytes cached`);
    assert.equal(await s.get('c:0'), undefined, 'the oldest answer went first');
    assert.equal(await s.get('c:199'), body, 'the newest answer is kept');
    const kept = (await Promise.all(Array.from({ length: 200 }, (_, i) => s.get(`c:${i}`)))).filter((v) => v !== undefined).length;
    // About 1.5 KB each counted (1 KB of text, the key, the per-entry overhead): 42 fit in 64 KB.
    assert.ok(kept >= 40 && kept <= 44, `${kept} answers kept`);
    assert.equal(await s.get('ban:1'), 'rule|123');
    assert.equal(await s.getNumber('rl:1'), 5);
  } finally {
    await s.close();
  }
});

test('the bound is the heap the answers take: small answers with long keys stay within it', async () => {
  // The static_cache's shape: a key of about 110 characters and a short JSON answer, the case where the per-entry
  // overhead (map slots, entry object, string headers) outweighs the characters.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const bound = 8 * 1024 * KB;
  const s = new MemoryState(Date.now, bound);
  try {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 60_000; i++) {
      const key = `cache:0b6f3c0e-2f4a-4c1e-9d7a-3f1f0c2b9a11:echo:1a2b3c4d5e6f7a8b:${createHash('sha256').update(String(i)).digest('hex')}`;
      await s.setCached(key, JSON.stringify({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `answer ${i}` }] } }), 60_000);
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.ok(s.cacheBytes <= bound);
    assert.ok(grown < 1.2 * bound, `the cache grew the heap by ${(grown / 1024 / KB).toFixed(1)} MB for a bound of 8 MB`);
  } finally {
    await s.close();
  }
});

test('the cache accounting follows deletes, overwrites, expiry and drains', async () => {
  let now = 1_000_000;
  const s = new MemoryState(() => now, 64 * KB);
  try {
    await s.setCached('c:a', 'x'.repeat(10 * KB), 1000);
    await s.setCached('c:a', 'y'.repeat(20 * KB), 1000);
    const one = s.cacheBytes;
    assert.ok(one > 20 * KB && one < 21 * KB, 'an overwrite replaces the old size');
    await s.set('c:a', 'plain');
    assert.equal(s.cacheBytes, 0, 'set turns the key into a plain value');
    await s.setCached('c:b', 'z'.repeat(KB), 1000);
    await s.del('c:b');
    assert.equal(s.cacheBytes, 0);
    await s.setCached('t:1:x', 'z'.repeat(KB), 1000);
    await s.setCached('t:1:y', 'z'.repeat(KB), 1000);
    assert.equal(await s.delPrefix('t:1:'), 2);
    assert.equal(s.cacheBytes, 0);
    await s.setCached('c:old', 'z'.repeat(KB), 1000);
    now += 2000;
    assert.equal(await s.get('c:old'), undefined);
    assert.equal(s.cacheBytes, 0, 'an expired entry is released');
    await s.setCached('c:huge', 'z'.repeat(100 * KB), 1000);
    assert.equal(await s.get('c:huge'), undefined, 'an answer larger than the whole bound is not kept');
    assert.equal(s.cacheBytes, 0);
  } finally {
    await s.close();
  }
});

test('TTLs follow the injected clock: a fixed window ends on time, a sliding one is pushed back by every hit', async () => {
  let now = 1_000_000;
  const s = new MemoryState(() => now);
  try {
    assert.deepEqual(await s.incr('fixed', 1, 1000), { value: 1, ttlMs: 1000 });
    assert.deepEqual(await s.incr('sliding', 1, 1000, true), { value: 1, ttlMs: 1000 });
    await s.set('ban', 'rule|x', 5000);
    now += 600;
    assert.deepEqual(await s.incr('fixed', 1, 1000), { value: 2, ttlMs: 400 }, 'a fixed window keeps its first expiry');
    assert.deepEqual(await s.incr('sliding', 1, 1000, true), { value: 2, ttlMs: 1000 });
    now += 400;
    assert.equal(await s.getNumber('fixed'), 0, 'the fixed window ended 1 s after its first hit');
    assert.equal(await s.ttl('fixed'), -2);
    assert.equal(await s.getNumber('sliding'), 2, 'the sliding window was pushed back by its second hit');
    assert.equal(await s.ttl('sliding'), 600);
    now += 600;
    assert.equal(await s.getNumber('sliding'), 0);
    assert.equal(await s.get('ban'), 'rule|x');
    assert.equal(await s.ttl('ban'), 3400);
    now += 3400;
    assert.equal(await s.get('ban'), undefined, 'a value ends with its TTL');
  } finally {
    await s.close();
  }
});
