import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storableJson, storableJsonInTurns } from './text.ts';

test('storableJson: NULs and lone surrogates become U+FFFD; pairs and other text stay', () => {
  const v = { a: 'x\u0000y', b: 'lone \ud800 high', c: 'lone \udc00 low', d: 'pair 😀', e: 5 };
  assert.deepEqual(JSON.parse(storableJson(v)), { a: 'x\uFFFDy', b: 'lone \uFFFD high', c: 'lone \uFFFD low', d: 'pair 😀', e: 5 });
  assert.equal(storableJson({ plain: 'text' }), '{"plain":"text"}');
});

test('storableJsonInTurns: a batch larger than a slice is what storableJson gives, with turns of the event loop between slices', async () => {
  const rows = Array.from({ length: 7 }, (_, i) => ({ i, note: i === 5 ? 'bad\u0000byte' : `row ${i}`, gone: undefined }));
  let turns = 0;
  const tick = () => {
    turns++;
    if (turns < 100) setImmediate(tick);
  };
  setImmediate(tick);
  const before = turns;
  const json = await storableJsonInTurns(rows, 2);
  assert.equal(json, storableJson(rows));
  assert.ok(turns - before >= 3, `the loop ran ${turns - before} turns while 4 slices were serialised`);
  assert.equal(await storableJsonInTurns(rows.slice(0, 2), 2), storableJson(rows.slice(0, 2)), 'one slice: no turn needed');
  assert.equal(await storableJsonInTurns([], 2), '[]');
});
