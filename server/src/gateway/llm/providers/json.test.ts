import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureText } from '@tollgate/testkit/provider-fixtures.ts';
import { count, lastObjectOf } from './json.ts';

test('lastObjectOf reads the last top-level usage object without parsing the document', () => {
  const doc = fixtureText('openai', 'chat-completion.json');
  assert.deepEqual(lastObjectOf(doc, 'usage'), JSON.parse(doc).usage);
  const gem = fixtureText('gemini', 'stream-array.json');
  assert.deepEqual(lastObjectOf(gem, 'usageMetadata'), { promptTokenCount: 9, candidatesTokenCount: 5, totalTokenCount: 14 });
});

test('keys inside string values, braces in strings and non-object values are not mistaken for the object', () => {
  const content = 'he said "usage":{"prompt_tokens":999} and {braces} \\" quote';
  const doc = JSON.stringify({ choices: [{ message: { content } }], usage: { prompt_tokens: 3, note: '}{"' }, metadata: { usage: 'x' } });
  assert.deepEqual(lastObjectOf(doc, 'usage'), { prompt_tokens: 3, note: '}{"' });
  assert.equal(lastObjectOf('{"usage": null}', 'usage'), undefined);
  assert.equal(lastObjectOf('{"usage": {"a": 1', 'usage'), undefined);
  assert.deepEqual(lastObjectOf('{"usage" :1, "usage":\n {"a": {"b": 2}}}', 'usage'), { a: { b: 2 } });
});

test('count: non-negative finite integers up to a trillion; anything else is no count', () => {
  assert.equal(count({ n: 12.7 }, 'n'), 12);
  assert.equal(count({ n: 1e12 }, 'n'), 1e12);
  for (const bad of [-1, 1e13, Infinity, Number.NaN, '5', null]) assert.equal(count({ n: bad }, 'n'), undefined, String(bad));
  assert.equal(count('not an object', 'n'), undefined);
});
