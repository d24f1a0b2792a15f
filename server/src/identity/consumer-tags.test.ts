import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editConsumerTags, InvalidTag } from './consumer-tags.ts';

const base = ['private:permissions:user'];

test('removals apply before additions; duplicates are not added; absent removals are no-ops', () => {
  assert.deepEqual(editConsumerTags([...base, 'team:a'], ['team:b', 'team:b'], ['team:a', 'team:zzz']), [...base, 'team:b']);
});

test('a quota tag replaces the earlier value of the same quota only', () => {
  const cur = [...base, 'private:permissions:mcp:limit:10', 'private:permissions:apikey:limit:5'];
  assert.deepEqual(editConsumerTags(cur, ['private:permissions:mcp:limit:25'], []),
    [...base, 'private:permissions:apikey:limit:5', 'private:permissions:mcp:limit:25']);
  // mcp:limit and mcp:max_resp_body_kb are different quotas
  assert.deepEqual(editConsumerTags(cur, ['private:permissions:mcp:max_resp_body_kb:1024'], []),
    [...cur, 'private:permissions:mcp:max_resp_body_kb:1024']);
});

test('bad tags are rejected with a reason', () => {
  for (const bad of ['', 'has space', 'svc:personal:token', 'private:permissions:mcp:limit:-1', 'private:permissions:mcp:limit:x',
    'private:permissions:unknown:1', 'x'.repeat(201)]) {
    assert.throws(() => editConsumerTags(base, [bad], []), InvalidTag, bad);
  }
  assert.throws(() => editConsumerTags(base, [], ['private:permissions:user']), /cannot be removed/);
});
