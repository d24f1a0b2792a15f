import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextConditions, ok, waiting } from './outcome.ts';

test('conditions keep their transition time while their status holds, and other condition types are kept', () => {
  const t1 = new Date('2026-01-01T00:00:00Z');
  const t2 = new Date('2026-01-01T00:05:00Z');
  const first = nextConditions(undefined, waiting('SecretMissing', 'no Secret'), 1, t1);
  assert.deepEqual(first.map((c) => [c.type, c.status, c.reason, c.lastTransitionTime]), [
    ['Ready', 'False', 'SecretMissing', '2026-01-01T00:00:00Z'], ['Synced', 'False', 'SecretMissing', '2026-01-01T00:00:00Z'],
  ]);
  const withOther = [...first, { type: 'Custom', status: 'True' as const, reason: 'X', message: '', lastTransitionTime: '2025-01-01T00:00:00Z' }];
  const still = nextConditions(withOther, waiting('SecretKeyMissing', 'no key'), 2, t2);
  assert.equal(still[0]!.lastTransitionTime, '2026-01-01T00:00:00Z', 'still False: same transition time');
  assert.equal(still[0]!.reason, 'SecretKeyMissing');
  assert.equal(still[0]!.observedGeneration, 2);
  assert.equal(still.length, 3, 'the whole list, other types included');
  const done = nextConditions(still, ok({}), 2, t2);
  assert.equal(done[0]!.status, 'True');
  assert.equal(done[0]!.lastTransitionTime, '2026-01-01T00:05:00Z');
});
