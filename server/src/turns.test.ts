import { test } from 'node:test';
import assert from 'node:assert/strict';
import { turnCounter } from '@tollgate/testkit/turn-counter.ts';
import { mapInTurns } from './turns.ts';

test('mapInTurns maps in order, and gives the event loop a turn each time the items mapped reach the budget', async () => {
  const turns = turnCounter(50);
  const turnsBefore: number[] = [];
  const out = await mapInTurns([3, 1, 4, 1, 5, 9, 2], (n) => {
    turnsBefore.push(turns.count);
    return n * 10;
  }, 5, (n) => n);
  assert.deepEqual(out, [30, 10, 40, 10, 50, 90, 20]);
  // The weights 3+1+4 reach the budget after the third item, 1+5 after the fifth, 9 alone after the sixth.
  const [a, b, c, d, e, f, g] = turnsBefore as [number, number, number, number, number, number, number];
  assert.ok(a === b && b === c, `no turn within the first slice: ${turnsBefore}`);
  assert.ok(d > c && e === d && f > e && g > f, `a turn before the 4th, 6th and 7th items: ${turnsBefore}`);
  assert.deepEqual(await mapInTurns([1, 2], (n) => n + 1, 10), [2, 3], 'under the budget: no turn needed');
});
