import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue } from './queue.ts';

test('a key is queued once, and a key added while in progress runs again after it', async () => {
  const q = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 100 });
  q.add('a');
  q.add('a');
  q.add('b');
  assert.equal(q.depth, 2);
  const first = await q.next();
  assert.equal(first, 'a');
  q.add('a'); // changed while being processed
  assert.equal(q.depth, 1, 'not queued twice while in progress');
  assert.equal(await q.next(), 'b');
  q.done('a');
  assert.equal(await q.next(), 'a', 'queued again once the first run ended');
  q.shutdown();
  assert.equal(await q.next(), undefined);
});

test('failures back off exponentially per key up to the cap; success resets the backoff', () => {
  const q = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 1000 });
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => q.addRateLimited('x')), [100, 200, 400, 800, 1000, 1000]);
  assert.equal(q.addRateLimited('y'), 100, 'another key has its own backoff');
  q.forget('x');
  assert.equal(q.addRateLimited('x'), 100);
  q.shutdown();
});

test('a delayed key arrives after its delay; an earlier delay for the same key wins', async () => {
  const q = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 100 });
  const alive = setTimeout(() => undefined, 5000); // the queue's timers do not keep a process alive
  q.addAfter('k', 1000);
  q.addAfter('k', 20);
  const t0 = Date.now();
  assert.equal(await q.next(), 'k');
  assert.ok(Date.now() - t0 < 900);
  clearTimeout(alive);
  q.shutdown();
});
